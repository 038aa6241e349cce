// The panel as `npm start` and the CLI run it: the standard plugins on the SQLite store under DATA_DIR.

import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import {
  createPanel,
  openSqliteStore,
  type Panel,
  type PluginDefinition,
  parseQuotaLimits,
  type QuotaLimits,
} from '../core/index.ts'
import { billingPlugin, type CheckoutMode } from '../plugins/billing/index.ts'
import { brandsPlugin } from '../plugins/brands/index.ts'
import { customersPlugin } from '../plugins/customers/index.ts'
import { nodesPlugin } from '../plugins/nodes/index.ts'
import { sitesPlugin } from '../plugins/sites/index.ts'
import { webhooksPlugin } from '../plugins/webhooks/index.ts'

/**
 * The plugins of a standard installation: sites on the local node under `dataDir`, webhooks to the internet,
 * billing with checkout `open` unless `billingCheckout` says otherwise.
 */
export function standardPlugins(
  settings: Pick<StandardSettings, 'dataDir' | 'webhookAllowedHosts'> &
    Partial<Pick<StandardSettings, 'billingCheckout'>>,
): PluginDefinition[] {
  return [
    brandsPlugin(),
    customersPlugin(),
    nodesPlugin({ dataDir: settings.dataDir }),
    sitesPlugin(),
    billingPlugin({ checkout: settings.billingCheckout ?? 'open' }),
    webhooksPlugin({ allowedHosts: settings.webhookAllowedHosts }),
  ]
}

/** Settings read from the environment, with their defaults. */
export interface StandardSettings {
  /** `DATA_DIR`, default `./data`. */
  readonly dataDir: string
  /** `BODY_LIMIT_BYTES`, default 1 MiB. */
  readonly bodyLimitBytes: number | undefined
  /** `PLINTH_SECRET`; default a random secret kept in `<DATA_DIR>/secret.key`. */
  readonly secret: string | undefined
  /** `RATE_LIMIT_PER_MINUTE`, default 1,200 requests a minute per token. */
  readonly rateLimitPerMinute: number | undefined
  /** `WEBHOOK_ALLOWED_HOSTS`, comma-separated: hosts webhooks may reach over http or on private addresses. */
  readonly webhookAllowedHosts: readonly string[]
  /** `JOB_WORKERS`, default 4 jobs at once. */
  readonly jobWorkers: number | undefined
  /** `JOB_LEASE_MS`, default 30,000: how soon a dead worker's job is taken up again. */
  readonly jobLeaseMs: number | undefined
  /** `DEFAULT_CUSTOMER_LIMITS` (`sites=1,domains=1,diskMB=1024`): limits of customers without a subscription; default none. */
  readonly defaultCustomerLimits: QuotaLimits
  /** `BILLING_CHECKOUT`, `open` (default) or `closed`: whether customers subscribe themselves (docs/billing.md). */
  readonly billingCheckout: CheckoutMode
}

/** A positive whole number from the environment, or undefined when unset; anything else is an error. */
function wholeNumber(env: Record<string, string | undefined>, name: string): number | undefined {
  const value = env[name]
  if (value === undefined) return undefined
  if (!/^[1-9][0-9]{0,11}$/.test(value))
    throw new Error(`${name} must be a positive whole number, not "${value}"`)
  return Number(value)
}

/** Reads the settings; a malformed number is an error, not a silent default. */
export function settingsFromEnv(env: Record<string, string | undefined> = process.env): StandardSettings {
  return {
    dataDir: resolve(env.DATA_DIR ?? './data'),
    bodyLimitBytes: wholeNumber(env, 'BODY_LIMIT_BYTES'),
    rateLimitPerMinute: wholeNumber(env, 'RATE_LIMIT_PER_MINUTE'),
    secret: env.PLINTH_SECRET,
    // Normalised (case, brackets, IP notation) and checked by the webhooks plugin.
    webhookAllowedHosts: (env.WEBHOOK_ALLOWED_HOSTS ?? '').split(','),
    jobWorkers: wholeNumber(env, 'JOB_WORKERS'),
    jobLeaseMs: wholeNumber(env, 'JOB_LEASE_MS'),
    defaultCustomerLimits: parseQuotaLimits(env.DEFAULT_CUSTOMER_LIMITS ?? ''),
    billingCheckout: checkoutMode(env.BILLING_CHECKOUT),
  }
}

/** `BILLING_CHECKOUT`: `open` when unset; anything but `open` or `closed` is an error, not a silent default. */
function checkoutMode(value: string | undefined): CheckoutMode {
  if (value === undefined || value === 'open') return 'open'
  if (value === 'closed') return 'closed'
  throw new Error(`BILLING_CHECKOUT must be "open" or "closed", not "${value}"`)
}

/** The installation's secret: PLINTH_SECRET, or one made on first start and kept (mode 0600) in the data dir. */
function loadSecret(dataDir: string, fromEnv: string | undefined): string {
  if (fromEnv) return fromEnv
  const path = join(dataDir, 'secret.key')
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

/** Opens the standard panel on DATA_DIR; `plugins` defaults to {@link standardPlugins}. */
export async function openStandardPanel(
  settings: StandardSettings,
  plugins: readonly PluginDefinition[] = standardPlugins(settings),
): Promise<Panel> {
  const secret = loadSecret(settings.dataDir, settings.secret)
  const store = openSqliteStore({ path: join(settings.dataDir, 'plinth.sqlite') })
  try {
    return await createPanel({
      store,
      plugins,
      secret,
      limits: settings.bodyLimitBytes ? { bodyBytes: settings.bodyLimitBytes } : {},
      rateLimits: settings.rateLimitPerMinute ? { perMinute: settings.rateLimitPerMinute } : {},
      jobs: {
        ...(settings.jobWorkers ? { concurrency: settings.jobWorkers } : {}),
        ...(settings.jobLeaseMs ? { leaseMs: settings.jobLeaseMs } : {}),
      },
      defaultCustomerLimits: settings.defaultCustomerLimits,
    })
  } catch (error) {
    await store.close()
    throw error
  }
}
