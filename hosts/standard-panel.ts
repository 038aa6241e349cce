// The panel as `npm start` and the CLI open it: the installation's plugins on the SQLite store under DATA_DIR, with
// the secret kept beside it.

import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createPanel, openSqliteStore, type Panel, type PanelOptions } from '../core/host.ts'
import type { Installation, PluginList } from './plinth-config.ts'
import { SettingsError, type StandardSettings } from './settings.ts'

/** The store file of an installation in `dataDir`. */
export function storePathOf(dataDir: string): string {
  return join(dataDir, 'plinth.sqlite')
}

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
 * Why `settings.dataDir` holds no usable installation, a line each (none when it does): no store, or a store
 * without its secret (neither `secret.key` nor PLINTH_SECRET), which a new secret would not open.
 */
export function installationProblems(settings: Pick<StandardSettings, 'dataDir' | 'secret'>): string[] {
  const { dataDir } = settings
  if (!existsSync(storePathOf(dataDir)))
    return [
      `DATA_DIR: no Plinth installation in ${dataDir} (no plinth.sqlite there); start the server once with this DATA_DIR, or run \`npm run panel -- init\``,
    ]
  if (!settings.secret && !existsSync(secretPathOf(dataDir)))
    return [
      `DATA_DIR: ${dataDir} holds plinth.sqlite but not its secret.key, and PLINTH_SECRET is unset: put back the secret.key it was made with (a backup's FILE.secret.key), or set PLINTH_SECRET to it`,
    ]
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

/** Opens the installation in `settings.dataDir` with `plugins` (and the overrides an {@link Installation} names). */
export async function openStandardPanel(
  settings: StandardSettings,
  installation: PluginList | Installation,
  options: OpenOptions = {},
): Promise<Panel> {
  const { plugins, overrides = [] } = 'plugins' in installation ? installation : { plugins: installation }
  const storePath = storePathOf(settings.dataDir)
  const missing = options.existingOnly ? installationProblems(settings) : []
  if (missing.length > 0) throw new SettingsError(missing)
  const secret = loadSecret(settings.dataDir, settings.secret)
  const store = openSqliteStore({ path: storePath })
  try {
    return await createPanel({
      store,
      plugins,
      overrides,
      secret,
      limits: settings.bodyLimitBytes ? { bodyBytes: settings.bodyLimitBytes } : {},
      rateLimits: settings.rateLimitPerMinute ? { perMinute: settings.rateLimitPerMinute } : {},
      jobs: {
        ...(settings.jobWorkers ? { concurrency: settings.jobWorkers } : {}),
        ...(settings.jobLeaseMs ? { leaseMs: settings.jobLeaseMs } : {}),
      },
      defaultCustomerLimits: settings.defaultCustomerLimits,
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
