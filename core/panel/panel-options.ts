// What a host gives `createPanel`: the store, the plugins, the secret, and the settings of the panel's parts.

import type { LoginThrottlePolicy } from '../auth/login-throttle.ts'
import type { RateLimitPolicy } from '../http/rate-limiter.ts'
import type { Logger, PluginDefinition } from '../plugin/define-plugin.ts'
import type { Store } from '../store/store.ts'
import type { BackgroundOptions } from './background.ts'
import type { PanelLimits } from './limits.ts'
import type { MetricsOptions } from './metrics.ts'
import type { RequestRecord } from './router.ts'

/** Options of `createPanel`. */
export interface PanelOptions extends BackgroundOptions {
  /** The open store (see `openSqliteStore`). The panel closes it on `close()`. */
  readonly store: Store
  /** The plugins to mount, in any order: they are ordered by `requires`. */
  readonly plugins: readonly PluginDefinition[]
  /** Replacements for plugins of the same name (a brand's own billing, ...), honouring the same contract. */
  readonly overrides?: readonly PluginDefinition[]
  /** Base path of the API. Default `/api/v1`. */
  readonly basePath?: string
  /** Path of the OpenAPI document and reference page. Default `/api/docs`. */
  readonly docsPath?: string
  /** Server URL written in the OpenAPI document. Default `/`. */
  readonly serverUrl?: string
  /** Secret for signatures the panel makes (cursors, sessions, webhook secrets at rest); 32+ characters. */
  readonly secret: string
  readonly limits?: Partial<PanelLimits>
  /** Version reported by the document and capabilities. Default the package version. */
  readonly version?: string
  /** Requests a minute per credential (1,200) and per address for login (30). */
  readonly rateLimits?: Partial<RateLimitPolicy>
  /** How failed logins are slowed and refused; defaults: 5 per account, 20 per address, in 15 minutes. */
  readonly loginThrottle?: Partial<LoginThrottlePolicy>
  /**
   * Limits of customers without a subscription (and of every customer when no billing plugin is mounted), e.g.
   * `{ sites: 1 }`, of the metrics plugins declare. Default `{}`: unlimited, so a fresh installation works.
   */
  readonly defaultCustomerLimits?: Readonly<Record<string, number>>
  /**
   * Test panels: fail (500, naming the route) a request whose route breaks what it declares: a successful change
   * that wrote no audit entry, a refusal with a code the route does not list. Default false.
   */
  readonly contractChecks?: boolean
  /** Called once per finished request, with its route template, status, duration and caller (the request log). */
  readonly observe?: (record: RequestRecord) => void
  /**
   * Where the kernel and plugins log failures (a job's failed run, a webhook delivery given up, an unexpected error
   * under its request id), as `context.log`. A pino logger fits. Default: JSON lines of warnings and errors on stderr.
   */
  readonly logger?: Logger
  /**
   * Prometheus metrics at `/metrics`: who may read them (`token`, else loopback callers only) and whether the
   * process's own series are included; `false` serves no `/metrics`. Default: loopback only, panel series only.
   */
  readonly metrics?: MetricsOptions | false
}
