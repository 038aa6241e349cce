// createPanel: resolve the plugins (the kernel's own areas first), migrate, set up, read the catalogue, wire the
// routes and the background work. Each stage has its own file; this one says in which order they run.

import { writeAudit } from '../audit/audit-log.ts'
import { callerOfStoredCredential } from '../auth/authenticate.ts'
import { buildCaller, type Caller } from '../auth/caller.ts'
import { defaultLoginThrottle } from '../auth/login-throttle.ts'
import { createSecretBox } from '../crypto/secret-box.ts'
import { writeEvent } from '../events/outbox.ts'
import { createContractChecks } from '../http/contract-checks.ts'
import { defaultRateLimits } from '../http/rate-limiter.ts'
import { rateLimiterFor } from '../http/shared-rate-limiter.ts'
import { loginThrottleFor } from '../identity/shared-login-throttle.ts'
import type { User } from '../identity/users.ts'
import { type CustomerResource, removeCustomerResources } from '../plugin/customer-resources.ts'
import { createPluginRuntime } from '../plugin/plugin-runtime.ts'
import type { EventInput } from '../plugin/records.ts'
import { resolvePlugins } from '../plugin/resolve-plugins.ts'
import type { ServiceRef } from '../plugin/service.ts'
import { customerLimitsService } from '../quotas/customer-limits.ts'
import { createQuotas, type Quotas } from '../quotas/quotas.ts'
import { migrate, migrationsApplied } from '../store/migrations.ts'
import type { Store, Trx } from '../store/store.ts'
import { outsideTransactions } from '../store/transaction-context.ts'
import { tenancy } from '../tenancy/tenancy.ts'
import { usageCountersFor } from '../usage/usage-counters.ts'
import { kernelVersion } from '../version.ts'
import { createBackground } from './background.ts'
import { buildCatalogue, type Catalogue } from './catalogue.ts'
import { checkInstallationSecret } from './installation-secret.ts'
import { kernelAreaNames, kernelAreas } from './kernel-areas.ts'
import { kernelRoutes, type NamedReadinessCheck } from './kernel-routes.ts'
import { type PanelLimits, resolveLimits } from './limits.ts'
import { jsonLinesLogger } from './logger.ts'
import { createPanelMetrics, registerStoreGauges } from './metrics.ts'
import type { PanelOptions } from './panel-options.ts'
import { mountPanel } from './wiring.ts'

export type { PanelOptions }

/** A built panel. */
export interface Panel {
  /** Answers one request; hosts pass what they know of it (the client address). */
  handle(request: Request, info?: { readonly address?: string | null }): Promise<Response>
  /** The router alone, without the shortcut `handle` takes for paths without parameters (tests compare both). */
  readonly router: { handle(request: Request): Promise<Response> }
  /** The served OpenAPI 3.1 document. */
  readonly document: Readonly<Record<string, unknown>>
  readonly store: Store
  readonly limits: PanelLimits
  readonly secret: string
  /** Mounted plugins in dependency order (not the kernel's own areas). */
  readonly plugins: readonly { readonly name: string; readonly version: string }[]
  /** Every scope, event kind, problem code and usage metric, with who declares it. */
  readonly catalogue: Catalogue
  /** The caller `user` would be when signed in (for the CLI, which acts as a user without a request). */
  callerOf(user: User): Promise<Caller>
  /** A service for hosts and the CLI, or null when no plugin provides it. */
  service<T>(ref: ServiceRef<T>): T | null
  /** Starts the job workers, the event dispatcher and every plugin's `start`. Servers call it; the CLI does not. */
  start(): void
  /**
   * Begins to stop, while requests are still answered and the store stays open: `/readyz` answers 503, live event
   * streams end (their clients reconnect, to another instance if there is one), and the background work stops, the
   * jobs under way given back at once for another instance or the next start to resume. Hosts call it as they stop
   * accepting connections, so a stop never waits on a stream or a job.
   */
  drain(): Promise<void>
  /** Drains (when not yet done), then closes the store. Hosts first let the requests in flight finish. */
  close(): Promise<void>
}

/** Builds a panel: resolution errors, a failed migration or a bad setup all throw before anything is served. */
export async function createPanel(options: PanelOptions): Promise<Panel> {
  if (options.secret.length < 32) throw new Error('The panel secret must be at least 32 characters long')
  const { store } = options
  const basePath = options.basePath ?? '/api/v1'
  const limits = resolveLimits(options.limits)
  const rateLimits = { ...defaultRateLimits, ...options.rateLimits }
  const log = options.logger ?? jsonLinesLogger()
  const metrics = createPanelMetrics({
    log,
    processMetrics: options.metrics !== false && options.metrics?.processMetrics === true,
  })
  const version = options.version ?? kernelVersion
  let catalogue: Catalogue | undefined
  let quotas: Quotas | undefined
  const late = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`The panel's ${what} is not built yet`)
    return value
  }
  // The plugins' readiness checks, made once they are set up (below).
  let readinessChecks: NamedReadinessCheck[] = []
  const health = kernelRoutes(
    async () => isReady && store.isOpen,
    () => readinessChecks,
  )
  const kernel = {
    store,
    secret: options.secret,
    limits,
    version,
    rateLimitPerMinute: rateLimits.perMinute,
    // Counted in memory on SQLite, in the store on PostgreSQL (shared by the instances serving it).
    throttle: loginThrottleFor(store, { ...defaultLoginThrottle, ...options.loginThrottle }),
    catalogue: () => late(catalogue, 'catalogue'),
    quotas: () => late(quotas, 'quota service'),
    service: <T>(ref: ServiceRef<T>) => runtime.service(ref),
    installedPlugins: () =>
      plugins
        .filter((plugin) => !kernelAreaNames.has(plugin.name))
        .map((plugin) => ({
          name: plugin.name,
          version: plugin.version,
          capabilities: plugin.capabilities?.(runtime.contextFor(plugin.name)) ?? {},
        })),
    get jobs() {
      return background.registry
    },
    nudgeDispatcher: () => background.nudgeDispatcher(),
    get defaultCustomerLimits() {
      return late(quotas, 'quota service').check(options.defaultCustomerLimits ?? {})
    },
  }

  // Resolve: the kernel's areas and the plugins, checked and ordered; then the catalogue of what they declare.
  const plugins = resolvePlugins([...kernelAreas(kernel), ...options.plugins], options.overrides ?? [], {
    problemCodes: [],
    scopes: [],
    routes: health,
    basePath,
  })
  catalogue = buildCatalogue(plugins)
  const metricNames = catalogue.usageMetrics.map((metric) => metric.name)
  const usageFor = (plugin: string) =>
    usageCountersFor(
      plugin,
      late(catalogue, 'catalogue')
        .usageMetrics.filter((metric) => metric.plugin === plugin)
        .map((m) => m.name),
      metricNames,
    )
  quotas = createQuotas(
    catalogue.limitedMetrics,
    catalogue.resourceLimits,
    catalogue.planSettings,
    options.defaultCustomerLimits ?? {},
    () => runtime.service(customerLimitsService),
  )

  // Migrate: the kernel's tables first, then each plugin's, in dependency order.
  const migrationSets = plugins.map((plugin) => ({
    owner: plugin.name,
    migrations: plugin.migrations ?? [],
    usage: usageFor(plugin.name),
  }))
  await migrate(store, migrationSets)
  await checkInstallationSecret(store, options.secret)

  // Set up: services and extension points, then the job kinds every plugin runs.
  const outboxWrite = async (trx: Trx, event: EventInput) => {
    await writeEvent(trx, event)
    setTimeout(() => outsideTransactions(() => background.committed({ jobs: false, events: true })), 0)
  }
  // The resources whose records go with their customer, known once the routes are made (before any job runs).
  const customerResources: CustomerResource[] = []
  const system = { userId: null, tokenId: null, requestId: null, sourceAddress: null }
  const runtime = createPluginRuntime(store, plugins, {
    kernelPlugins: kernelAreaNames,
    secrets: createSecretBox(options.secret),
    knownEvents: () => late(catalogue, 'catalogue').events,
    enqueueJob: async (trx, job) => {
      const id = await background.enqueueJob(trx, job, system)
      // Started outside a request: wake the workers once the caller's transaction has likely committed.
      setTimeout(() => outsideTransactions(() => background.committed({ jobs: true, events: false })), 0)
      return id
    },
    cancelJob: async (trx, id) => {
      const cancel = await background.cancelJob(trx, id)
      // A job ended at once sent `job.finished`: the dispatcher delivers it once the caller's transaction commits.
      if (cancel.outcome === 'cancelled')
        setTimeout(() => outsideTransactions(() => background.committed({ jobs: false, events: true })), 0)
      return cancel.outcome === 'not_cancellable' ? 'finished' : cancel.outcome
    },
    audit: (trx, entry) => writeAudit(trx, system, entry),
    writeEvent: outboxWrite,
    quotas,
    tenancy: {
      ...tenancy,
      removeResources: (run, customerId) =>
        removeCustomerResources(customerResources, { writeEvent: outboxWrite, usageFor }, run, customerId),
    },
    callerOf: (credential) =>
      callerOfStoredCredential({ db: store.db, scopes: late(catalogue, 'catalogue').holdings }, credential),
    usageFor,
    log,
    metricsFor: (plugin) => metrics.forPlugin(plugin),
  })
  const background = createBackground(store, runtime.consumers, options, { log, metrics })
  for (const plugin of plugins) await plugin.setup?.(runtime.contextFor(plugin.name))
  runtime.seal()
  background.registerJobs(plugins, runtime.contextFor)
  readinessChecks = plugins.flatMap((plugin) =>
    (plugin.readinessChecks?.(runtime.contextFor(plugin.name)) ?? []).map((check) => ({
      ...check,
      plugin: plugin.name,
    })),
  )
  registerStoreGauges(metrics, store, () => background.registry.keys(), version)

  // Wire: every route through the pipeline onto one router, and the document made from them.
  const stopping = new AbortController()
  const wired = mountPanel({
    plugins,
    health,
    contextFor: runtime.contextFor,
    catalogue,
    background,
    customerResources,
    limiter: rateLimiterFor(store, rateLimits, log),
    contractChecks: options.contractChecks ? createContractChecks(store) : null,
    log,
    metrics,
    stopping: stopping.signal,
    options: { ...options, basePath, limits },
  })

  let isReady = await migrationsApplied(store, migrationSets)
  let draining: Promise<void> | undefined
  const drain = () => {
    draining ??= (async () => {
      isReady = false
      stopping.abort(new Error('The panel is stopping'))
      await background.stop()
    })()
    return draining
  }
  return {
    handle: wired.handle,
    router: wired.router,
    document: wired.document,
    store,
    limits,
    secret: options.secret,
    plugins: plugins
      .filter((plugin) => !kernelAreaNames.has(plugin.name))
      .map(({ name, version }) => ({ name, version })),
    catalogue,
    callerOf: (user) =>
      buildCaller(store.db, user, { session: { id: 'cli' } }, late(catalogue, 'catalogue').holdings),
    service: (ref) => runtime.service(ref),
    start: () => background.start(plugins, runtime.contextFor),
    drain,
    async close() {
      await drain()
      await store.close()
    },
  }
}
