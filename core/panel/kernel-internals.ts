// What the kernel's own areas (identity, audit, jobs, usage, capabilities) need of the panel, beyond what plugin
// contexts give every plugin. Parts are known only once the plugins are resolved and set up, hence the functions.

import type { LoginThrottling } from '../identity/shared-login-throttle.ts'
import type { RegisteredJob } from '../jobs/job-runner.ts'
import type { ServiceRef } from '../plugin/service.ts'
import type { Quotas } from '../quotas/quotas.ts'
import type { Store } from '../store/store.ts'
import type { Catalogue } from './catalogue.ts'
import type { PanelLimits } from './limits.ts'

/** The panel as the kernel's areas see it. */
export interface KernelInternals {
  readonly store: Store
  readonly secret: string
  readonly limits: PanelLimits
  /** Reported by capabilities and the OpenAPI document. */
  readonly version: string
  readonly rateLimitPerMinute: number
  readonly throttle: LoginThrottling
  /** Every job kind the plugins run, filled once they are set up. */
  readonly jobs: ReadonlyMap<string, RegisteredJob>
  /** Every declaration, with its owner. */
  catalogue(): Catalogue
  quotas(): Quotas
  /** A service some plugin provides, or null. */
  service<T>(ref: ServiceRef<T>): T | null
  /** The mounted plugins with what each adds to capabilities. */
  installedPlugins(): readonly {
    readonly name: string
    readonly version: string
    readonly capabilities: Readonly<Record<string, unknown>>
  }[]
  /** Wakes the event dispatcher (a cancelled job's `job.finished`). */
  nudgeDispatcher(): void
  /** The limits of customers without a subscription, as configured. */
  readonly defaultCustomerLimits: Readonly<Record<string, number>>
}
