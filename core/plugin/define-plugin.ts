// The plugin contract: a plain object made by a factory, which the kernel resolves before mounting anything.

import type { TSchema } from '@sinclair/typebox'
import type { StoredCredential } from '../auth/authenticate.ts'
import type { Caller } from '../auth/caller.ts'
import type { TeamRole } from '../auth/roles.ts'
import type { SecretBox } from '../crypto/secret-box.ts'
import type { EventConsumer, KnownEvent, OutboxEvent } from '../events/event-consumer.ts'
import type { JobDefinition, JobRequest } from '../jobs/job-definition.ts'
import type { ProblemRef } from '../problem/problem-code.ts'
import type { PlanSettingDefinition } from '../quotas/plan-settings.ts'
import type { Quotas } from '../quotas/quotas.ts'
import type { Migration } from '../store/migrations.ts'
import type { Db, Store, Trx } from '../store/store.ts'
import type { Tenancy } from '../tenancy/tenancy.ts'
import type { UsageCounters } from '../usage/usage-counters.ts'
import type { ExtensionPointRef, ExtensionRegistry } from './extension-point.ts'
import type { ReadinessCheck } from './readiness-check.ts'
import type { AuditInput, EventInput, RouteDefinition } from './route.ts'
import type { ServiceRef } from './service.ts'
import type { WebRoute } from './web-route.ts'

/** A permission a plugin adds: `resource:action`. */
export interface ScopeDefinition {
  /** `site:create`; lower-case resource and action. */
  readonly name: string
  readonly description: string
  /**
   * Who holds it besides customer roles: `true` for platform and brand staff only (a staff area), `'platform'`
   * for the provider's own staff only (brands cannot, e.g. `brand:create`). Default false: a customer scope.
   */
  readonly staff?: boolean | 'platform'
  /**
   * The team roles that hold a customer scope on their customer; must include `owner`. Default `['owner',
   * 'admin']`. Staff scopes have none. The roles table in docs/tenancy.md is generated from these.
   * @example roles: ['owner', 'admin', 'developer']
   */
  readonly roles?: readonly TeamRole[]
}

/** An event kind a plugin emits: `resource.pastTenseVerb`. */
export interface EventDefinition {
  /** `site.created`. */
  readonly kind: string
  readonly description: string
  /** Schema of the event's `data`. */
  readonly payload: TSchema
}

/**
 * A usage counter a plugin keeps per customer (`context.usage.adjust` in the transaction of each change), summed
 * in `GET /usage` per customer, brand and installation; with `quota`, plans may also limit it.
 */
export interface UsageMetricDefinition {
  /** camelCase, unique in the panel: `sites`, `diskMB`. Also the key in `/usage` and in plans' `limits`. */
  readonly name: string
  /** What is counted, for `/usage`'s schema. */
  readonly description: string
  /** Plans and the installation's defaults may limit it: what the limit means, and the refusal past it (422). */
  readonly quota?: { readonly description: string; readonly problem: ProblemRef }
}

/**
 * A limit plans set on each of a customer's resources of one kind (each site's CPU), rather than on their total: no
 * usage counter and no refusal. It sits in plans' `limits` beside the quota metrics; the declaring plugin reads it
 * (`context.quotas.perResourceOf`) and applies it to each resource itself.
 */
export interface ResourceLimitDefinition {
  /** camelCase, unique in the panel among usage metrics too: `cpuPercent`. The key in plans' `limits`. */
  readonly name: string
  /** What the limit means, for the plans' schema (`CPU each site may take, in percent of one core.`). */
  readonly description: string
  /**
   * The least a plan may set (default 0), where less is nothing its plugin can apply (a site's memory of 0 MB
   * leaves it nothing to run with): refused at the member, in plans and in the installation's defaults.
   */
  readonly minimum?: number
  /** The most a plan may set (default 1 000 000 000), where more is refused where it is applied (`pids.max`). */
  readonly maximum?: number
}

/** A section of `GET /usage` a plugin computes itself (traffic), over the usage scopes of the caller's view. */
export interface UsageSection {
  /** The key in `/usage`: `traffic`. */
  readonly name: string
  /** Its schema, documented in `/usage`'s answer. */
  readonly schema: TSchema
  /**
   * The section for the caller's view, given as usage scopes (`context.usage.scopesOfView`): what the plugin
   * recorded under them with `context.usage.scopesOf`.
   */
  read(db: Db, scopes: readonly string[]): Promise<unknown>
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
  /** The panel's instance of an extension point: the owner reads it, plugins that require or enhance it add to it. */
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
  /**
   * Runs `handler` for every event of `kind` (of this plugin or of one it requires), inside the transaction that
   * marks it dispatched, at least once (again after a crash, so make it idempotent). During setup only.
   * @example context.onEvent('site.deleted', (trx, event) => removeCronJobsOf(trx, String(event.data.id)))
   */
  onEvent(kind: string, handler: (trx: Trx, event: OutboxEvent) => Promise<void>): void
  /** Every event kind the panel declares (the kernel's and every plugin's), with payload schemas. */
  knownEvents(): readonly KnownEvent[]
  /**
   * Starts a job in `trx` (it runs once the transaction commits) on behalf of the installation; returns its id.
   * Routes use their handler's `enqueueJob`, which records the caller. Unknown kinds throw.
   */
  enqueueJob(trx: Trx, job: JobRequest): Promise<string>
  /**
   * Cancels job `id` in `trx`, when its kind is `cancellable`: a queued one ends `cancelled` at once (its kind's
   * `onGivenUp` runs), a running one is aborted by its worker as `trx` commits. Answers what became of it:
   * `cancelled`, `requested`, or `finished` (nothing to cancel, or a kind that cannot be).
   * @example await context.cancelJob(trx, site.job_id) // a site deleted while it is provisioned
   */
  cancelJob(trx: Trx, id: string): Promise<CancelledJob>
  /**
   * Writes an audit entry in `trx` on behalf of the installation, for changes no request made (the webhooks plugin
   * disabling an endpoint that answered 410). Routes use their handler's `audit`, which records the caller.
   */
  audit(trx: Trx, entry: AuditInput): Promise<void>
  /**
   * Puts an event of this plugin's declared kinds in the outbox in `trx`, for changes made outside the plugin's
   * routes and jobs (an extension point another plugin calls). Routes and jobs use their own `emit`.
   */
  emit(trx: Trx, event: EventInput): Promise<void>
  /** Which brand each customer belongs to, and customers' teams (the kernel keeps both: callers are made of them). */
  readonly tenancy: Tenancy
  /**
   * The caller of a credential recorded earlier (who asked for a shell session, with which token), made afresh as a
   * request's is, or null once it no longer authenticates (token revoked or expired, user gone or disabled): what
   * outlives its request checks with it that its caller may still do what it does (`caller.viewFor(scope)`).
   */
  callerOf(credential: StoredCredential): Promise<Caller | null>
  /** The usage counters this plugin declares (`usage`), adjusted in the transaction of each change. */
  readonly usage: UsageCounters
  /** Customers' limits (plans, or the installation's defaults) beside their use; the check creating routes make. */
  readonly quotas: Quotas
  /**
   * The panel's logger, bound to `{ plugin }`: JSON lines with the fields given. Log ids (`deliveryId`,
   * `endpointId`, `jobId`), never secrets, tokens, passwords, URLs with credentials or request bodies.
   * @example context.log.warn({ deliveryId, endpointId, attempt }, 'webhook delivery failed; retrying')
   */
  readonly log: Logger
  /**
   * The panel's Prometheus registry, served at `/metrics`: counters, gauges and histograms named `plinth_…`,
   * declared once (during setup or in `routes`/`jobs`/`start`) and updated as things happen.
   * @example const sent = context.metrics.counter({ name: 'plinth_notes_sent_total', help: 'Notes sent.' })
   */
  readonly metrics: PluginMetrics
}

/** Fields of a log line: ids, counts, codes; never secrets or request bodies. An `err` is logged with its stack. */
export type LogFields = Readonly<Record<string, unknown>>

/**
 * Where the kernel and plugins write what happened (fields first, as pino takes them, so a pino logger is one).
 * Hosts give the panel theirs (`PanelOptions.logger`); the default writes JSON lines of warnings and errors to
 * stderr.
 */
export interface Logger {
  error(fields: LogFields, message: string): void
  warn(fields: LogFields, message: string): void
  info(fields: LogFields, message: string): void
  debug(fields: LogFields, message: string): void
  /** A logger that adds `bindings` to every line. */
  child(bindings: LogFields): Logger
}

/** The label values of one series; labels left out are empty. */
export type MetricLabels<L extends string> = Readonly<Partial<Record<L, string | number>>>

/** What every metric declares. */
export interface MetricDefinition<L extends string> {
  /**
   * `plinth_` and snake_case, unique in the panel (a second declaration of a name fails the start-up, naming both
   * plugins); a counter's ends in `_total`, a measure's names its unit (`_seconds`, `_bytes`).
   */
  readonly name: string
  /** One sentence: what is counted or measured (Prometheus `# HELP`). */
  readonly help: string
  /**
   * The labels its series are told apart by. Keep their values few (an outcome, a kind, a route template): never
   * an id, an address or a user's text, each of which makes a series of its own.
   */
  readonly labelNames?: readonly L[]
}

/** A gauge: a value that goes up and down; `collect` reads it at each scrape instead (from the store). */
export interface GaugeDefinition<L extends string> extends MetricDefinition<L> {
  /**
   * Called at each scrape of `/metrics`: the value, or one value per label set (series not listed are dropped). A
   * failure is logged; that scrape shows the gauge as NaN (without labels) or with no series (with labels).
   */
  collect?(): Promise<number | readonly { readonly labels: MetricLabels<L>; readonly value: number }[]>
}

/** A histogram: how often values fell at or below each bucket (seconds by default: 5 ms to 10 s). */
export interface HistogramDefinition<L extends string> extends MetricDefinition<L> {
  /** Upper bounds, ascending. */
  readonly buckets?: readonly number[]
}

/** A counter: only goes up (restarts at 0 with the process). */
export interface CounterMetric<L extends string> {
  inc(labels?: MetricLabels<L>, by?: number): void
}

/** A gauge set as things happen (or read at scrape time through `collect`). */
export interface GaugeMetric<L extends string> {
  set(value: number, labels?: MetricLabels<L>): void
  inc(labels?: MetricLabels<L>, by?: number): void
  dec(labels?: MetricLabels<L>, by?: number): void
}

/** A histogram of observed values. */
export interface HistogramMetric<L extends string> {
  observe(value: number, labels?: MetricLabels<L>): void
}

/** Declares a plugin's metrics on the panel's registry (`context.metrics`). */
export interface PluginMetrics {
  counter<const L extends string = never>(definition: MetricDefinition<L>): CounterMetric<L>
  gauge<const L extends string = never>(definition: GaugeDefinition<L>): GaugeMetric<L>
  histogram<const L extends string = never>(definition: HistogramDefinition<L>): HistogramMetric<L>
}

/** What {@link PluginContext.cancelJob} did: ended the job, asked its worker to stop it, or nothing (finished). */
export type CancelledJob = 'cancelled' | 'requested' | 'finished'

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
  /**
   * Plugins it adds to when they are mounted, without needing them (the sites plugin's console pages; a brand may
   * leave the console out). A mounted one is set up before this one, which may fill its extension points and use
   * its services, as with `requires`; an absent one's extension points take this plugin's entries and keep none.
   * @example enhances: ['console']
   */
  readonly enhances?: readonly string[]
  readonly scopes?: readonly ScopeDefinition[]
  readonly events?: readonly EventDefinition[]
  /** Its refusals, as made by `defineProblems`. */
  readonly problems?: Readonly<Record<string, ProblemRef>>
  /** Its schema changes, in id order. A plugin touches only its own tables. */
  readonly migrations?: readonly Migration[]
  /** Extension points it owns; others fill them during their own setup. */
  readonly extensionPoints?: readonly ExtensionPointRef<unknown>[]
  /** The usage counters it keeps, and which of them plans may limit. */
  readonly usage?: readonly UsageMetricDefinition[]
  /** Limits plans set on each of a customer's resources (each site), beside the quota metrics. */
  readonly resourceLimits?: readonly ResourceLimitDefinition[]
  /** Settings plans carry beside their limits, which it applies (a plan's PHP functions). */
  readonly planSettings?: readonly PlanSettingDefinition[]
  /** Sections of `GET /usage` it computes itself. */
  readonly usageSections?: readonly UsageSection[]
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
   * What it serves to browsers beside the API (a web app: its page at `/`, its assets), made once the panel is set
   * up. Public GETs outside the API's base path; see {@link WebRoute}.
   */
  webRoutes?(context: PluginContext): readonly WebRoute[]
  /**
   * What it contributes to the panel's readiness (`/readyz`): checks of what it relies on that can fail while the API
   * answers (the nodes plugin's local node serving sites), made once the panel is set up. See {@link ReadinessCheck}.
   */
  readinessChecks?(context: PluginContext): readonly ReadinessCheck[]
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
