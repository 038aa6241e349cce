// `config check` and `init`: the configuration as `npm start` would read it, every problem at once; and making
// the installation on purpose.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { installationStoreOf } from '../installation-store.ts'
import { type Installation, installationPlugins } from '../plinth-config.ts'
import { SettingsError, type StandardSettings, settingsFromEnv } from '../settings.ts'
import { installationProblems, openStandardPanel } from '../standard-panel.ts'
import { startupProblems } from '../startup-failure.ts'
import { CliError, StartupFailure } from './cli-error.ts'

/** A problem as a host prints it: one line each, never a stack trace. */
function lines(problems: readonly string[]): string[] {
  return problems.flatMap((problem) => problem.split('\n')).filter((line) => line.trim() !== '')
}

/**
 * Reads every setting and PLINTH_CONFIG and builds the panel on a throwaway store, as `npm start` would without
 * serving: answers `ok` (after a word on DATA_DIR), or throws every problem found, a line each (exit 2).
 */
export async function checkConfiguration(
  env: Readonly<Record<string, string | undefined>>,
): Promise<string[]> {
  const problems: string[] = []
  let settings: StandardSettings | null = null
  try {
    settings = settingsFromEnv({ ...env })
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error
    problems.push(...error.problems)
  }
  const notes: string[] = []
  if (settings) {
    let installation: Installation | null = null
    try {
      installation = await installationPlugins(settings)
    } catch (error) {
      const found = startupProblems(error)
      problems.push(
        ...(error instanceof SettingsError
          ? found
          : found.map((line) => `PLINTH_CONFIG: ${settings?.configPath}: ${line}`)),
      )
    }
    if (installation) problems.push(...(await buildProblems(settings, installation)))
    const located = installationStoreOf(settings)
    try {
      if (!(await located.exists()))
        notes.push(`${located.where} holds no installation yet: npm start or \`init\` makes one`)
      else {
        const missing = await installationProblems(settings)
        if (missing.length > 0) problems.push(...missing)
        else notes.push(`${located.where} holds an installation`)
      }
    } catch (error) {
      problems.push(...startupProblems(error))
    }
  }
  if (problems.length > 0)
    throw new CliError(
      lines(problems)
        .map((line) => `plinth: ${line}`)
        .join('\n'),
      2,
    )
  return [...notes, 'ok']
}

/** What building the panel with these settings and plugins refuses, on a throwaway store and secret. */
async function buildProblems(settings: StandardSettings, installation: Installation): Promise<string[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'plinth-config-check-'))
  try {
    const secret =
      settings.secret ?? Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')
    // On a scratch SQLite store whatever DATABASE_URL says: checking changes nothing anywhere.
    const panel = await openStandardPanel(
      { ...settings, dataDir: scratch, secret, databaseUrl: null },
      installation,
    )
    await panel.close()
    return []
  } catch (error) {
    return startupProblems(error)
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

/** `init`: makes the installation in DATA_DIR (store, migrations, secret), or applies pending migrations to it. */
export async function initInstallation(settings: StandardSettings): Promise<string[]> {
  const located = installationStoreOf(settings)
  let existed: boolean
  try {
    existed = await located.exists()
  } catch (error) {
    throw new StartupFailure(error)
  }
  if (existed) {
    const missing = await installationProblems(settings)
    if (missing.length > 0) throw new StartupFailure(new SettingsError(missing))
  }
  try {
    const panel = await openStandardPanel(settings, await installationPlugins(settings))
    await panel.close()
  } catch (error) {
    throw new StartupFailure(error)
  }
  if (existed) return [`${located.where} already holds a Plinth installation; its migrations are applied`]
  const secret = settings.secret
    ? 'the secret is PLINTH_SECRET'
    : `the secret is ${join(settings.dataDir, 'secret.key')} (mode 0600)`
  return [
    settings.databaseUrl === null
      ? `Created a Plinth installation in ${settings.dataDir}: plinth.sqlite${settings.secret ? ' (the secret is PLINTH_SECRET)' : ' and secret.key (mode 0600)'}`
      : `Created a Plinth installation in ${located.where}; ${secret}: every instance needs it`,
    'Next: npm run panel -- admin create --email you@example.com',
  ]
}
