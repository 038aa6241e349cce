// The standard installation's settings, read from the environment: every malformed one reported at once, one line
// each, so an operator fixes them in one go instead of one start-up per mistake.

import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { type LogLevel, logLevels, parseQuotaLimits, type QuotaLimits } from '../core/host.ts'
import { parseTrustedProxies, type TrustedProxies } from './trusted-proxies.ts'

/** Whether customers subscribe themselves to a plan (`open`) or only staff and billing systems do (`closed`). */
export type CheckoutMode = 'open' | 'closed'

/** Settings read from the environment, with their defaults (docs/operators.md lists them all). */
export interface StandardSettings {
  /** `PORT`, default 3000 (0 picks a free one). */
  readonly port: number
  /** `HOST`, default `127.0.0.1`. */
  readonly host: string
  /** `DATA_DIR`, default `./data`, as an absolute path. */
  readonly dataDir: string
  /** `BODY_LIMIT_BYTES`, default 1 MiB. */
  readonly bodyLimitBytes: number | undefined
  /** `UPLOAD_LIMIT_BYTES`, default 10 GiB: the largest file an upload streams through. */
  readonly uploadLimitBytes: number | undefined
  /** `PLINTH_SECRET` (32 characters or more); default a random secret kept in `<DATA_DIR>/secret.key`. */
  readonly secret: string | undefined
  /** `RATE_LIMIT_PER_MINUTE`, default 1,200 requests a minute per token. */
  readonly rateLimitPerMinute: number | undefined
  /** `WEBHOOK_ALLOWED_HOSTS`, comma-separated: hosts webhooks may reach over http or on private addresses. */
  readonly webhookAllowedHosts: readonly string[]
  /** `JOB_WORKERS`, default 4 jobs at once. */
  readonly jobWorkers: number | undefined
  /** `JOB_LEASE_MS`, default 30,000: how soon a dead worker's job is taken up again. */
  readonly jobLeaseMs: number | undefined
  /** `DEFAULT_CUSTOMER_LIMITS` (`sites=1,domains=1,diskMB=1024`): limits of customers without a subscription. */
  readonly defaultCustomerLimits: QuotaLimits
  /** `BILLING_CHECKOUT`, `open` (default) or `closed`. */
  readonly billingCheckout: CheckoutMode
  /**
   * `TRUST_PROXY`: the reverse proxies (addresses or CIDRs, comma-separated) whose `X-Forwarded-For` and
   * `X-Forwarded-Proto` are believed; none by default. Its old `1`/`true`/`yes` stops the start-up, saying so.
   */
  readonly trustedProxies: TrustedProxies
  /**
   * `PUBLIC_URL`: the URL people and clients reach the panel at (`https://panel.example.com`). Its host name is the
   * panel's: no site may take it, or a name under it. None by default.
   */
  readonly publicUrl: string | null
  /** `PLINTH_CONFIG`: a module whose default export gives the plugin list; absolute, or null for the standard one. */
  readonly configPath: string | null
  /** `METRICS_TOKEN`: the bearer token `/metrics` wants; without it `/metrics` answers loopback callers only. */
  readonly metricsToken: string | null
  /** `LOG_REQUESTS`: `0`/`false`/`no` turns the per-request log lines off. Default on. */
  readonly logRequests: boolean
  /** `LOG_LEVEL`: `debug`, `info` (default), `warn` or `error`; lines below it are not written. */
  readonly logLevel: LogLevel
  /** `DATABASE_URL` (`postgres://…`): the PostgreSQL database to keep the installation in; null for SQLite in DATA_DIR. */
  readonly databaseUrl: string | null
  /** `DATABASE_POOL_SIZE`, default 10: connections each instance opens to PostgreSQL (LISTEN takes one more). */
  readonly databasePoolSize: number | undefined
  /** `DATABASE_SCHEMA`: the PostgreSQL schema to keep the tables in, made if missing; default the user's (`public`). */
  readonly databaseSchema: string | null
  /**
   * `LOCAL_SITES`: `serve` (default) runs the `local` node's sites with the machine's nginx and PHP-FPM when they
   * are installed; `files` only lays out their files (what a machine without them does anyway, said so in the
   * node's state).
   */
  readonly localSites: 'serve' | 'files'
  /**
   * `SITES_DATA_DIR`, default `<DATA_DIR>-sites` beside the data directory: the local node's nginx and PHP-FPM
   * configuration and its sites' homes (a directory of their own: the panel's holds its secret).
   */
  readonly sitesDataDir: string
  /** `SITES_HTTP_PORT`, default 80: where the local node's nginx serves sites. */
  readonly sitesHttpPort: number
  /** `SITES_HTTPS_PORT`, default 443. */
  readonly sitesHttpsPort: number
  /**
   * `SFTP_PORT`: where the local node's SSH server serves SFTP accounts (docs/sftp.md); unset (null), the local node
   * runs none and refuses accounts with `sftp_unavailable`.
   */
  readonly sftpPort: number | null
  /** `SFTP_LISTEN`, default `0.0.0.0`: the address the local node's SSH server listens on. */
  readonly sftpListen: string
  /**
   * `STAGING_DOMAIN`: a domain whose sub-domains point at the nodes; a staging copy's default domain is then
   * `staging-<handle>.<it>` (docs/staging.md). Unset (null): `staging.<live domain>`.
   */
  readonly stagingDomain: string | null
  /**
   * `NODE_DATABASE_PORT`, default 3307: where on 127.0.0.1 the local node's own MariaDB serves its sites, when the
   * node serves them and MariaDB's server is installed (docs/databases.md); `off` (null) runs none.
   */
  readonly nodeDatabasePort: number | null
  /** `SHELL_IDLE_SECONDS`, default 900: a shell session without input for this long ends (docs/shell.md). */
  readonly shellIdleSeconds: number
  /** `SHELL_SESSIONS_PER_SITE`, default 3: shell sessions pending or open on one site at once. */
  readonly shellSessionsPerSite: number
  /**
   * `SHELL_ALLOWED_ORIGINS`, comma-separated origins (`https://portal.example.com`) whose pages may open a shell's
   * WebSocket besides the panel's own origin.
   */
  readonly shellAllowedOrigins: readonly string[]
  /**
   * `ACME_DIRECTORY_URL`, default Let's Encrypt's production directory: where ACME certificates are ordered.
   * `off` (null here) turns ordering off; uploads still work.
   */
  readonly acmeDirectoryUrl: string | null
  /** `ACME_EMAIL`: the contact address the installation's ACME account gives the CA; none by default. */
  readonly acmeEmail: string | null
  /** The certificates of `ACME_CA_FILE`: authorities trusted for the directory's HTTPS besides the system's. */
  readonly acmeCaPem: string | null
}

/** Let's Encrypt's production ACME directory. */
const letsEncrypt = 'https://acme-v02.api.letsencrypt.org/directory'

/** A database URL fit for messages and logs: its password replaced. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '***'
    // libpq takes `?password=` too; no query value is printed (others are harmless, but which are is libpq's list).
    for (const name of [...parsed.searchParams.keys()]) parsed.searchParams.set(name, '***')
    return parsed.href.replaceAll('%2A%2A%2A', '***')
  } catch {
    return '(a malformed URL)'
  }
}

/** Why `value` is no PostgreSQL URL, or null when it is one. */
function databaseUrlProblem(value: string): string | null {
  let parsed: URL
  try {
    parsed = new URL(value)
  } catch {
    return 'DATABASE_URL must be a URL like postgres://user:password@host:5432/database'
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:')
    return `DATABASE_URL must start with postgres:// or postgresql:// (PostgreSQL is the only other store), not ${parsed.protocol}//`
  if (parsed.pathname.length <= 1) return `DATABASE_URL names no database: ${redactedUrl(value)}`
  return null
}

/** Settings the environment got wrong: every one of them, a line each. */
export class SettingsError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'))
    this.name = 'SettingsError'
  }
}

const truthy = ['1', 'true', 'yes']
const falsy = ['0', 'false', 'no']

/**
 * Reads the settings; a malformed value is an error, never a silent default. Throws a {@link SettingsError}
 * listing every one.
 */
export function settingsFromEnv(env: Record<string, string | undefined> = process.env): StandardSettings {
  const problems: string[] = []
  /** A whole number from the environment within bounds, or undefined when unset. */
  const wholeNumber = (name: string, min = 1, max = 1e12): number | undefined => {
    const value = env[name]
    if (value === undefined) return undefined
    const parsed = /^[0-9]{1,13}$/.test(value) ? Number(value) : Number.NaN
    if (!(parsed >= min && parsed <= max)) {
      problems.push(`${name} must be a whole number from ${min} to ${max}, not "${value}"`)
      return undefined
    }
    return parsed
  }
  const flag = (name: string, otherwise: boolean): boolean => {
    const value = (env[name] ?? '').toLowerCase()
    if (value === '') return otherwise
    if (truthy.includes(value)) return true
    if (falsy.includes(value)) return false
    problems.push(`${name} must be 1, true, yes, 0, false or no, not "${env[name]}"`)
    return otherwise
  }
  const secret = env.PLINTH_SECRET
  if (secret !== undefined && secret.length < 32)
    problems.push('PLINTH_SECRET must be at least 32 characters long (or unset, to use DATA_DIR/secret.key)')
  let defaultCustomerLimits: QuotaLimits = {}
  try {
    defaultCustomerLimits = parseQuotaLimits(env.DEFAULT_CUSTOMER_LIMITS ?? '')
  } catch (error) {
    problems.push(`DEFAULT_CUSTOMER_LIMITS: ${(error as Error).message}`)
  }
  const checkout = env.BILLING_CHECKOUT ?? 'open'
  if (checkout !== 'open' && checkout !== 'closed')
    problems.push(`BILLING_CHECKOUT must be "open" or "closed", not "${checkout}"`)
  const logLevel = (env.LOG_LEVEL || 'info').toLowerCase()
  if (!Object.hasOwn(logLevels, logLevel))
    problems.push(`LOG_LEVEL must be debug, info, warn or error, not "${env.LOG_LEVEL}"`)
  const metricsToken = env.METRICS_TOKEN || null
  if (metricsToken !== null && metricsToken.length < 16)
    problems.push('METRICS_TOKEN must be at least 16 characters long (or unset, for loopback callers only)')
  const configPath = env.PLINTH_CONFIG ? resolve(env.PLINTH_CONFIG) : null
  if (configPath !== null && !existsSync(configPath)) problems.push(`PLINTH_CONFIG: no file at ${configPath}`)
  const databaseUrl = env.DATABASE_URL || null
  const urlProblem = databaseUrl === null ? null : databaseUrlProblem(databaseUrl)
  if (urlProblem) problems.push(urlProblem)
  const databaseSchema = env.DATABASE_SCHEMA || null
  if (databaseSchema !== null && !/^[a-z_][a-z0-9_]{0,62}$/.test(databaseSchema))
    problems.push(
      `DATABASE_SCHEMA must be a plain PostgreSQL name (lower case letters, digits, _; 63 at most), not "${databaseSchema}"`,
    )
  // System schemas: PostgreSQL refuses most (blaming the URL), and `information_schema` is left out of pg_dump.
  if (
    databaseSchema !== null &&
    (databaseSchema === 'information_schema' || databaseSchema.startsWith('pg_'))
  )
    problems.push(
      `DATABASE_SCHEMA must not name a system schema ("${databaseSchema}"): pick a name of your own`,
    )
  if (
    env.LOCAL_SITES !== undefined &&
    env.LOCAL_SITES !== '' &&
    env.LOCAL_SITES !== 'serve' &&
    env.LOCAL_SITES !== 'files'
  )
    problems.push('LOCAL_SITES must be serve or files')
  if (databaseSchema !== null && databaseUrl === null)
    problems.push('DATABASE_SCHEMA names a PostgreSQL schema, but DATABASE_URL is unset')
  const acmeDirectory = env.ACME_DIRECTORY_URL || letsEncrypt
  let acmeDirectoryUrl: string | null = acmeDirectory === 'off' ? null : acmeDirectory
  if (acmeDirectoryUrl !== null && !/^https:\/\/[^\s]+$/.test(acmeDirectoryUrl)) {
    problems.push(
      `ACME_DIRECTORY_URL must be an https:// URL of an ACME directory, or off, not "${acmeDirectory}"`,
    )
    acmeDirectoryUrl = null
  }
  const stagingDomain = env.STAGING_DOMAIN ? env.STAGING_DOMAIN.toLowerCase().replace(/\.$/, '') : null
  if (
    stagingDomain !== null &&
    !/^(?=.{1,200}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(stagingDomain)
  )
    problems.push(`STAGING_DOMAIN must be a domain such as staging.example.net, not "${env.STAGING_DOMAIN}"`)
  const shellAllowedOrigins = (env.SHELL_ALLOWED_ORIGINS ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '')
  for (const origin of shellAllowedOrigins) {
    let parsed: URL | null = null
    try {
      parsed = new URL(origin)
    } catch {}
    if (!parsed || parsed.origin !== origin)
      problems.push(
        `SHELL_ALLOWED_ORIGINS must list origins such as https://portal.example.com, not "${origin}"`,
      )
  }
  const trust = parseTrustedProxies(env.TRUST_PROXY)
  if ('problem' in trust) problems.push(trust.problem)
  const publicUrl = env.PUBLIC_URL || null
  if (publicUrl !== null && !/^https?:\/\/[^\s/?#]+(\/[^\s]*)?$/.test(publicUrl))
    problems.push(
      `PUBLIC_URL must be the http:// or https:// URL the panel is reached at, not "${publicUrl}"`,
    )
  const acmeEmail = env.ACME_EMAIL || null
  if (acmeEmail !== null && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(acmeEmail))
    problems.push(`ACME_EMAIL must be an email address, not "${acmeEmail}"`)
  let acmeCaPem: string | null = null
  if (env.ACME_CA_FILE) {
    const path = resolve(env.ACME_CA_FILE)
    try {
      acmeCaPem = readFileSync(path, 'utf8')
      if (!acmeCaPem.includes('-----BEGIN CERTIFICATE-----')) {
        problems.push(`ACME_CA_FILE: ${path} holds no PEM certificate`)
        acmeCaPem = null
      }
    } catch (error) {
      problems.push(`ACME_CA_FILE: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? error})`)
    }
  }
  const settings: StandardSettings = {
    port: wholeNumber('PORT', 0, 65535) ?? 3000,
    host: env.HOST || '127.0.0.1',
    dataDir: resolve(env.DATA_DIR || './data'),
    bodyLimitBytes: wholeNumber('BODY_LIMIT_BYTES'),
    uploadLimitBytes: wholeNumber('UPLOAD_LIMIT_BYTES'),
    rateLimitPerMinute: wholeNumber('RATE_LIMIT_PER_MINUTE'),
    secret,
    // Normalised (case, brackets, IP notation) and checked by the webhooks plugin.
    webhookAllowedHosts: (env.WEBHOOK_ALLOWED_HOSTS ?? '').split(','),
    jobWorkers: wholeNumber('JOB_WORKERS', 1, 256),
    jobLeaseMs: wholeNumber('JOB_LEASE_MS', 1000, 86_400_000),
    defaultCustomerLimits,
    billingCheckout: checkout === 'closed' ? 'closed' : 'open',
    trustedProxies: 'proxies' in trust ? trust.proxies : [],
    publicUrl,
    configPath,
    metricsToken,
    logRequests: flag('LOG_REQUESTS', true),
    logLevel: Object.hasOwn(logLevels, logLevel) ? (logLevel as LogLevel) : 'info',
    databaseUrl,
    databasePoolSize: wholeNumber('DATABASE_POOL_SIZE', 1, 1000),
    databaseSchema,
    localSites: env.LOCAL_SITES === 'files' ? 'files' : 'serve',
    sitesDataDir: resolve(env.SITES_DATA_DIR || `${resolve(env.DATA_DIR || './data')}-sites`),
    sitesHttpPort: wholeNumber('SITES_HTTP_PORT', 1, 65535) ?? 80,
    sitesHttpsPort: wholeNumber('SITES_HTTPS_PORT', 1, 65535) ?? 443,
    // `off` as an agent takes it: no SSH server on the local node.
    sftpPort: env.SFTP_PORT === 'off' ? null : (wholeNumber('SFTP_PORT', 1, 65535) ?? null),
    sftpListen: env.SFTP_LISTEN || '0.0.0.0',
    stagingDomain,
    nodeDatabasePort:
      env.NODE_DATABASE_PORT === 'off' ? null : (wholeNumber('NODE_DATABASE_PORT', 1, 65535) ?? 3307),
    shellIdleSeconds: wholeNumber('SHELL_IDLE_SECONDS', 10, 86_400) ?? 900,
    shellSessionsPerSite: wholeNumber('SHELL_SESSIONS_PER_SITE', 1, 100) ?? 3,
    shellAllowedOrigins,
    acmeDirectoryUrl,
    acmeEmail,
    acmeCaPem,
  }
  if (problems.length > 0) throw new SettingsError(problems)
  return settings
}
