// Where the standard installation keeps its store: DATABASE_URL's settings, and an installation on PostgreSQL with
// the secret every instance must share.

import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { InstallationSecretMismatch } from '../core/host.ts'
import { installationStoreOf } from './installation-store.ts'
import { installationPlugins } from './plinth-config.ts'
import { redactedUrl, SettingsError, settingsFromEnv } from './settings.ts'
import { installationProblems, openStandardPanel } from './standard-panel.ts'
import { createProcessTracker, postgresSettingsFor } from './testing/host-process.ts'

const { tempDataDir, cleanup } = createProcessTracker('plinth-installation-store-')
afterAll(cleanup)

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    settingsFromEnv(env)
    return []
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error
    return error.problems
  }
}

describe('DATABASE_URL and its companions', () => {
  test('unset means SQLite in DATA_DIR; a PostgreSQL URL, pool size and schema are read as given', () => {
    expect(settingsFromEnv({}).databaseUrl).toBeNull()
    const settings = settingsFromEnv({
      DATABASE_URL: 'postgresql://plinth:s3cret@db.internal:5432/plinth',
      DATABASE_POOL_SIZE: '25',
      DATABASE_SCHEMA: 'panel_one',
    })
    expect(settings.databaseUrl).toBe('postgresql://plinth:s3cret@db.internal:5432/plinth')
    expect(settings.databasePoolSize).toBe(25)
    expect(settings.databaseSchema).toBe('panel_one')
  })

  test('every malformed one is a problem of its own, and no problem shows the password', () => {
    const problems = problemsOf({
      DATABASE_URL: 'mysql://root:hunter22@db/plinth',
      DATABASE_POOL_SIZE: '0',
      DATABASE_SCHEMA: 'Robert"); drop table users;--',
    })
    expect(problems).toHaveLength(3)
    expect(problems.join('\n')).not.toContain('hunter22')
    expect(problemsOf({ DATABASE_URL: 'postgres://u:hunter22@db' })).toEqual([
      'DATABASE_URL names no database: postgres://u:***@db',
    ])
    expect(problemsOf({ DATABASE_SCHEMA: 'panel' })).toEqual([
      'DATABASE_SCHEMA names a PostgreSQL schema, but DATABASE_URL is unset',
    ])
  })

  test('a password given as a URL parameter is never shown; system schemas are refused, naming DATABASE_SCHEMA', () => {
    expect(redactedUrl('postgres://u@db/plinth?password=hunter22&sslmode=require')).toBe(
      'postgres://u@db/plinth?password=***&sslmode=***',
    )
    const url = 'postgres://u@db/plinth'
    for (const schema of ['information_schema', 'pg_catalog', 'pg_temp'])
      expect(problemsOf({ DATABASE_URL: url, DATABASE_SCHEMA: schema })).toEqual([
        `DATABASE_SCHEMA must not name a system schema ("${schema}"): pick a name of your own`,
      ])
  })

  test('a server that accepts and never answers is a setting problem within bounded time, not a hang', async () => {
    const silent = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {}, open() {} } })
    try {
      const settings = settingsFromEnv({
        DATA_DIR: tempDataDir(),
        DATABASE_URL: `postgres://u:hunter22@127.0.0.1:${silent.port}/plinth`,
      })
      const error = await installationStoreOf(settings)
        .exists()
        .then(() => null)
        .catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(SettingsError)
      expect((error as SettingsError).problems.join('\n')).toContain('DATABASE_URL: no PostgreSQL answered')
      expect((error as SettingsError).problems.join('\n')).not.toContain('hunter22')
    } finally {
      silent.stop(true)
    }
  }, 30_000)
})

describe('an installation on PostgreSQL', () => {
  test('made on first start with its secret in DATA_DIR; another instance needs that secret, and no other', async () => {
    const first = tempDataDir()
    const database = postgresSettingsFor(first)
    const settings = settingsFromEnv({ DATA_DIR: first, ...database })
    expect(await installationProblems(settings)).toEqual([
      `DATABASE_URL ${database.DATABASE_URL} (schema ${database.DATABASE_SCHEMA}) holds no Plinth installation; start the server once with it, or run \`npm run panel -- init\``,
    ])
    const panel = await openStandardPanel(settings, await installationPlugins(settings))
    expect((await panel.handle(new Request('http://localhost/readyz'))).status).toBe(200)
    await panel.close()
    expect(existsSync(join(first, 'secret.key'))).toBe(true)
    expect(existsSync(join(first, 'plinth.sqlite'))).toBe(false)

    // A second machine: its own DATA_DIR, no secret.key there, no PLINTH_SECRET.
    const second = settingsFromEnv({ DATA_DIR: tempDataDir(), ...database })
    const refused = await openStandardPanel(second, await installationPlugins(second)).catch((error) => error)
    expect(refused).toBeInstanceOf(SettingsError)
    expect((refused as SettingsError).problems[0]).toContain(
      'set PLINTH_SECRET to the secret it was made with',
    )

    const wrong = settingsFromEnv({ DATA_DIR: tempDataDir(), ...database, PLINTH_SECRET: 'x'.repeat(40) })
    // Said by the checks `config check` runs too, without writing anything.
    expect(await installationProblems(wrong)).toEqual([new InstallationSecretMismatch().message])
    const mismatch = await openStandardPanel(wrong, await installationPlugins(wrong)).catch((error) => error)
    expect(String((mismatch as Error).message)).toContain(new InstallationSecretMismatch().message)

    const secret = (await Bun.file(join(first, 'secret.key')).text()).trim()
    const right = settingsFromEnv({ DATA_DIR: tempDataDir(), ...database, PLINTH_SECRET: secret })
    const again = await openStandardPanel(right, await installationPlugins(right), { existingOnly: true })
    expect((await again.handle(new Request('http://localhost/readyz'))).status).toBe(200)
    await again.close()
  })

  test('an unreachable server is a setting problem naming it without its password', async () => {
    const settings = settingsFromEnv({
      DATA_DIR: tempDataDir(),
      DATABASE_URL: 'postgres://plinth:hunter22@127.0.0.1:9/plinth',
    })
    const refused = await installationProblems(settings).catch((error) => error)
    expect(refused).toBeInstanceOf(SettingsError)
    const [line] = (refused as SettingsError).problems
    expect(line).toStartWith('DATABASE_URL: cannot use postgres://plinth:***@127.0.0.1:9/plinth: ')
    expect(line).not.toContain('hunter22')
  })
})
