// The plugin contract: a plain object made by a factory, which the kernel resolves before mounting anything.

import type { TSchema } from '@sinclair/typebox'
import type { SecretBox } from '../crypto/secret-box.ts'
import type { EventConsumer, KnownEvent } from '../events/event-consumer.ts'
import type { JobDefinition, JobRequest } from '../jobs/job-definition.ts'
import type { ProblemRef } from '../problem/problem-code.ts'
import type { CustomerQuota, QuotaRequest } from '../quotas/quotas.ts'
import type { Migration } from '../store/migrations.ts'
import type { Db, Store, Trx } from '../store/store.ts'
import type { ExtensionPointRef, ExtensionRegistry } from './extension-point.ts'
import type { AuditInput, EventInput, RouteDefinition } from './route.ts'
import type { ServiceRef } from './service.ts'

/** A permission a plugin adds: `resource:action`. */
export interface ScopeDefinition {
  /** `site:create`; lower-case resource and action. */
  readonly name: string
  readonly description: string
  /**
   * Who holds it besides customer roles: `true` for platform and brand staff only (a staff area), `'platform'`
   * for the provider's own staff only (brands cannot, e.g. `brand:create`). Default false: a customer scope,
   * granted to team roles by resource (see docs/tenancy.md).
   */
  readonly staff?: boolean | 'platform'
}

/** An event kind a plugin emits: `resource.pastTenseVerb`. */
export interface EventDefinition {
  /** `site.created`. */
  readonly kind: string
  readonly description: string
  /** Schema of the event's `data`. */
  readonly payload: TSchema
}

/** What a plugin sees while the panel is being built. */
export interface PluginContext {
  /** The plugin being set up. */
  readonly plugin: string
  readonly store: Store
  /** The store's query builder (outside transactions). */
  readonly db: Db
  /** Runs work in one transaction. */
  transaction<T>(work: (trx: Trx) => Promise<T>): Promise<T>
  /** Encrypts secrets the plugin must keep (webhook signing secrets) under the panel secret. */
  readonly secrets: SecretBox
  /** The panel's instance of an extension point: the owner reads it, plugins that require the owner add to it. */
  extensionPoint<T>(ref: ExtensionPointRef<T>): ExtensionRegistry<T>
  /** Provides a service this plugin owns (or a kernel slot, such as `kernel.tenantDirectory`). Once per service. */
  provide<T>(ref: ServiceRef<T>, implementation: T): void
  /** A service provided by the kernel or by a plugin this one requires. Throws if it was never provided. */
  use<T>(ref: ServiceRef<T>): T
  /**
   * Receives every event from the outbox, in order, inside the transaction that marks it dispatched (during setup
   * only). The webhooks plugin fans events out to endpoints this way.
   */
  consumeEvents(consumer: EventConsumer): void
  /** Every event kind the panel declares (the kernel's and every plugin's), with payload schemas. */
  knownEvents(): readonly KnownEvent[]
  /**
   * Starts a job in `trx` (it runs once the transaction commits) on behalf of the installation; returns its id.
   * Routes use their handler's `enqueueJob`, which records the caller. Unknown kinds throw.
   */
  enqueueJob(trx: Trx, job: JobRequest): Promise<string>
  /**
   * Writes an audit entry in `trx` on behalf of the installation, for changes no request made (the webhooks plugin
   * disabling an endpoint that answered 410). Routes use their handler's `audit`, which records the caller.
   */
  audit(trx: Trx, entry: AuditInput): Promise<void>
  /**
   * Puts an event of this plugin's declared kinds in the outbox in `trx`, for changes made outside the plugin's
   * routes and jobs (an extension point another plugin calls, such as `customers.suspensionHandlers`). Routes
   * and jobs use their own `emit`. Undeclared kinds throw.
   */
  emit(trx: Trx, event: EventInput): Promise<void>
  /**
   * A customer's limits beside its use: from `kernel.customerLimits` (the billing plugin), or the installation's
   * default limits when no plugin fills it or the customer has no subscription.
   */
  quotaOf(db: Db, customerId: string): Promise<CustomerQuota>
  /**
   * Checks, inside the transaction that creates resources, that `amounts` more fit within the customer's limits;
   * throws 422 `site_limit_reached` (`domain_…`, `database_…`, `disk_…`) or `customer_suspended`. Adjust the usage
   * counters (`adjustUsage`) in the same transaction; concurrent creates for the last slot then cannot both pass.
   * @example await context.reserveQuota(trx, { customerId, amounts: { sites: 1, domains: 1 } })
   */
  reserveQuota(trx: Trx, request: QuotaRequest): Promise<CustomerQuota>
}

/** A background task a plugin runs while the panel is started; returns how to stop it. */
export type BackgroundTask = () => Promise<void> | void

/** A plugin as the kernel receives it. Make one with {@link definePlugin} inside a factory function. */
export interface PluginDefinition {
  /** Unique name, kebab-case: `sites`, `billing`. Also the OpenAPI tag of its operations. */
  readonly name: string
  /** Semver of the plugin, reported by capabilities. */
  readonly version: string
  readonly description: string
  /** Plugins that must be mounted (and set up) before this one. */
  readonly requires?: readonly string[]
  readonly scopes?: readonly ScopeDefinition[]
  readonly events?: readonly EventDefinition[]
  /** Its refusals, as made by `defineProblems`. */
  readonly problems?: Readonly<Record<string, ProblemRef>>
  /** Its schema changes, in id order. A plugin touches only its own tables. */
  readonly migrations?: readonly Migration[]
  /** Extension points it owns; others fill them during their own setup. */
  readonly extensionPoints?: readonly ExtensionPointRef<unknown>[]
  /** Runs in dependency order before any route is mounted: provide services, fill extension points. */
  setup?(context: PluginContext): void | Promise<void>
  /** The kinds of job it runs, made once the whole panel is set up. Kinds are unique across the panel. */
  jobs?(context: PluginContext): readonly JobDefinition[]
  /**
   * Starts its background work when the panel starts (hosts call `panel.start()`; the CLI does not); returns the
   * function that stops it, awaited by `panel.close()`.
   */
  start?(context: PluginContext): BackgroundTask | undefined
  /** Its operations, made once the whole panel is set up (every extension point filled). */
  routes?(context: PluginContext): readonly RouteDefinition[]
  /**
   * What it adds to `GET /capabilities` under its name (`{ siteTypes: [...] }` for sites), read once the panel
   * is set up. JSON-serialisable.
   */
  capabilities?(context: PluginContext): Readonly<Record<string, unknown>>
}

/**
 * Declares a plugin. Call it inside an exported factory so options can grow without breaking callers:
 * @example export const sitesPlugin = (options: SitesOptions = {}) => definePlugin({ name: 'sites', ... })
 */
export function definePlugin<const P extends PluginDefinition>(plugin: P): P {
  return plugin
}
