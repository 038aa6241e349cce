// The panel as `npm start` and the CLI open it: the installation's plugins on its store (SQLite in DATA_DIR, or the
// PostgreSQL database of DATABASE_URL), with the secret PLINTH_SECRET or kept in DATA_DIR.

import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  createPanel,
  InstallationSecretMismatch,
  type Panel,
  type PanelOptions,
  secretMatchesInstallation,
} from '../core/host.ts'
import { installationStoreOf, storePathOf } from './installation-store.ts'
import type { Installation, PluginList } from './plinth-config.ts'
import { SettingsError, type StandardSettings } from './settings.ts'

export { storePathOf }

/** The installation's secret: PLINTH_SECRET, or one made on first start and kept (mode 0600) in the data dir. */
function loadSecret(dataDir: string, fromEnv: string | undefined): string {
  if (fromEnv) return fromEnv
  const path = secretPathOf(dataDir)
  if (!existsSync(path)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 })
    // Written whole under a temporary name, then linked into place: two first starts at once agree on one
    // secret, and neither ever reads a half-written file.
    const temporary = `${path}.${process.pid}.tmp`
    writeFileSync(
      temporary,
      `${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')}\n`,
      { mode: 0o600 },
    )
    try {
      linkSync(temporary, path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    } finally {
      unlinkSync(temporary)
    }
  }
  return readFileSync(path, 'utf8').trim()
}

/** The secret file of an installation in `dataDir`. */
export function secretPathOf(dataDir: string): string {
  return join(dataDir, 'secret.key')
}

/**
 * Why the settings name no usable installation, a line each (none when they do): no store where they point, or a
 * store without its secret (neither `secret.key` nor PLINTH_SECRET), which a new secret would not open.
 */
export async function installationProblems(
  settings: Pick<
    StandardSettings,
    'dataDir' | 'secret' | 'databaseUrl' | 'databasePoolSize' | 'databaseSchema'
  >,
): Promise<string[]> {
  const { dataDir } = settings
  const store = installationStoreOf(settings)
  if (!(await store.exists()))
    return settings.databaseUrl === null
      ? [
          `DATA_DIR: no Plinth installation in ${dataDir} (no plinth.sqlite there); start the server once with this DATA_DIR, or run \`npm run panel -- init\``,
        ]
      : [
          `${store.where} holds no Plinth installation; start the server once with it, or run \`npm run panel -- init\``,
        ]
  if (!settings.secret && !existsSync(secretPathOf(dataDir)))
    return [
      settings.databaseUrl === null
        ? `DATA_DIR: ${dataDir} holds plinth.sqlite but not its secret.key, and PLINTH_SECRET is unset: put back the secret.key it was made with (a backup's FILE.secret.key), or set PLINTH_SECRET to it`
        : `${store.where} holds an installation, but PLINTH_SECRET is unset and DATA_DIR ${dataDir} has no secret.key: set PLINTH_SECRET to the secret it was made with (every instance needs the same one)`,
    ]
  const opened = await store.open()
  try {
    if (!(await secretMatchesInstallation(opened, loadSecret(dataDir, settings.secret ?? undefined))))
      return [new InstallationSecretMismatch().message]
  } finally {
    await opened.close()
  }
  return []
}

/** How a host opens the installation besides its settings. */
export interface OpenOptions {
  /**
   * Refuse a DATA_DIR that holds no installation instead of making one (the CLI: a mistyped DATA_DIR must not
   * quietly become a second, empty installation).
   */
  readonly existingOnly?: boolean
  /** Called once per finished request (the request log). */
  readonly observe?: PanelOptions['observe']
  /** Where the kernel and plugins log; default JSON lines of warnings and errors on stderr. */
  readonly logger?: PanelOptions['logger']
  /** `/metrics` also shows the process's own series (CPU, memory, event loop lag): servers, not the CLI. */
  readonly processMetrics?: boolean
}

/** The panel options the settings give (body, rate and customer limits, job workers), as `npm start` applies them. */
export function panelOptionsOf(settings: StandardSettings) {
  return {
    limits: {
      ...(settings.bodyLimitBytes ? { bodyBytes: settings.bodyLimitBytes } : {}),
      ...(settings.uploadLimitBytes ? { uploadBytes: settings.uploadLimitBytes } : {}),
    },
    rateLimits: settings.rateLimitPerMinute ? { perMinute: settings.rateLimitPerMinute } : {},
    jobs: {
      ...(settings.jobWorkers ? { concurrency: settings.jobWorkers } : {}),
      ...(settings.jobLeaseMs ? { leaseMs: settings.jobLeaseMs } : {}),
    },
    defaultCustomerLimits: settings.defaultCustomerLimits,
  }
}

/** Opens the installation in `settings.dataDir` with `plugins` (and the overrides an {@link Installation} names). */
export async function openStandardPanel(
  settings: StandardSettings,
  installation: PluginList | Installation,
  options: OpenOptions = {},
): Promise<Panel> {
  const { plugins, overrides = [] } = 'plugins' in installation ? installation : { plugins: installation }
  const located = installationStoreOf(settings)
  // A store already made is opened only with a secret: a new one would open none of what it sealed.
  const missing = options.existingOnly || (await located.exists()) ? await installationProblems(settings) : []
  if (missing.length > 0) throw new SettingsError(missing)
  const secret = loadSecret(settings.dataDir, settings.secret)
  const store = await located.open()
  try {
    return await createPanel({
      store,
      plugins,
      overrides,
      secret,
      ...panelOptionsOf(settings),
      observe: options.observe,
      ...(options.logger ? { logger: options.logger } : {}),
      // METRICS_TOKEN, else loopback callers only (docs/operators.md).
      metrics: { token: settings.metricsToken, processMetrics: options.processMetrics === true },
    })
  } catch (error) {
    await store.close()
    throw error
  }
}
