// createPanel: resolves the plugins, migrates the store, runs setup, mounts every route on one Elysia instance.

import { Elysia } from 'elysia'
import { writeAudit } from '../audit/audit-log.ts'
import { auditRoutes, auditScopes } from '../audit/audit-routes.ts'
import { buildCaller, type Caller } from '../auth/caller.ts'
import {
  createLoginThrottle,
  defaultLoginThrottle,
  type LoginThrottlePolicy,
} from '../auth/login-throttle.ts'
import { createSecretBox } from '../crypto/secret-box.ts'
import { createDispatcher, type DispatcherOptions, defaultDispatcherOptions } from '../events/dispatcher.ts'
import type { KnownEvent } from '../events/event-consumer.ts'
import { writeEvent } from '../events/outbox.ts'
import { createRateLimiter, defaultRateLimits, type RateLimitPolicy } from '../http/rate-limiter.ts'
import { compileRoute, type RequestInfo } from '../http/route-pipeline.ts'
import { identityRoutes, userProblems, userScopes } from '../identity/routes/index.ts'
import { kernelMigrations } from '../identity/tables.ts'
import type { User } from '../identity/users.ts'
import { newId } from '../ids/ids.ts'
import type { JobRequest } from '../jobs/job-definition.ts'
import { insertJob, type JobRequester } from '../jobs/job-queue.ts'
import { jobProblems, jobRoutes, jobScopes } from '../jobs/job-routes.ts'
import {
  createJobRunner,
  defaultJobRunnerOptions,
  defaultMaxAttempts,
  type JobRunnerOptions,
  type RegisteredJob,
} from '../jobs/job-runner.ts'
import { Job } from '../jobs/job-schema.ts'
import { buildDocument, type MountedRoute } from '../openapi/build-document.ts'
import { docsAsset, docsPageHtmlFor, prefersHtml } from '../openapi/docs-page.ts'
import type { BackgroundTask, PluginDefinition, ScopeDefinition } from '../plugin/define-plugin.ts'
import { PluginResolutionError } from '../plugin/plugin-resolution-error.ts'
import { createPluginRuntime } from '../plugin/plugin-runtime.ts'
import { checkRoutes, resolvePlugins } from '../plugin/resolve-plugins.ts'
import type { RouteDefinition } from '../plugin/route.ts'
import type { ServiceRef } from '../plugin/service.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'
import type { ProblemRef } from '../problem/problem-code.ts'
import { customerLimitsService } from '../quotas/customer-limits.ts'
import { checkQuotaLimits, type QuotaLimits } from '../quotas/quota-limits.ts'
import { quotaProblems } from '../quotas/quota-problems.ts'
import { createQuotas } from '../quotas/quotas.ts'
import { type MigrationSet, migrate, migrationsApplied } from '../store/migrations.ts'
import type { Store, Trx } from '../store/store.ts'
import { brandDirectoryService, tenantDirectoryService } from '../tenancy/tenant-view.ts'
import { usageRoutes } from '../usage/usage-routes.ts'
import { capabilitiesRoutes } from './capabilities-routes.ts'
import { errorResponse, type KnownRoute, notFoundProblem, routePattern } from './error-response.ts'
import { kernelRoutes } from './kernel-routes.ts'
import { type PanelLimits, resolveLimits } from './limits.ts'

/** Options of {@link createPanel}. */
export interface PanelOptions {
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
  /** The job worker pool: concurrency (4), lease (30 s), poll interval, retry backoff, shutdown grace. */
  readonly jobs?: Partial<JobRunnerOptions>
  /** The outbox dispatcher: poll interval (250 ms) and batch size. */
  readonly events?: Partial<DispatcherOptions>
  /**
   * Limits of customers without a subscription (and of every customer when no billing plugin is mounted), e.g.
   * `{ sites: 1, domains: 1, diskMB: 1024 }`. Default `{}`: unlimited, so a fresh installation works without plans.
   */
  readonly defaultCustomerLimits?: QuotaLimits
}

/** A built panel. */
export interface Panel {
  /** The whole panel as one Elysia instance, to `.use()` or `.mount()` in an app. */
  readonly app: Elysia
  /** Answers one request; hosts pass what they know of it (the client address). */
  handle(request: Request, info?: { readonly address?: string | null }): Promise<Response>
  /** The served OpenAPI 3.1 document. */
  readonly document: Readonly<Record<string, unknown>>
  readonly store: Store
  readonly limits: PanelLimits
  readonly secret: string
  /** Mounted plugins in dependency order. */
  readonly plugins: readonly { readonly name: string; readonly version: string }[]
  /** Every scope the panel declares. */
  readonly scopes: ReadonlySet<string>
  /** Every problem code the panel can answer with, and who declares it (the catalogue in docs/). */
  readonly problems: readonly (ProblemRef & { readonly owner: string })[]
  /** The caller `user` would be when signed in (for the CLI, which acts as a user without a request). */
  callerOf(user: User): Promise<Caller>
  /** A service for hosts and the CLI, or null when no plugin provides it. */
  service<T>(ref: ServiceRef<T>): T | null
  /**
   * Starts the background work: the job workers, the event dispatcher and every plugin's `start` (webhook
   * delivery, ...). Servers call it; the CLI and one-off scripts do not. Idempotent.
   */
  start(): void
  /** Stops the background work (running jobs get a grace period), then closes the store. Host first drains requests. */
  close(): Promise<void>
}

const kernelScopes: readonly ScopeDefinition[] = [...userScopes, ...auditScopes, ...jobScopes]

/** Events the kernel itself emits. */
const kernelEvents = [
  {
    kind: 'job.finished',
    description: 'A job reached a final state: `succeeded`, `failed` or `cancelled`.',
    payload: Job,
    owner: 'kernel',
  },
] as const satisfies readonly KnownEvent[]

/**
 * The path of `url` when it can be looked up as written, or null when the router must decide: a path it would
 * normalise (percent-escapes, a trailing slash) or a URL with a fragment.
 */
function staticPathOf(url: string): string | null {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start < 0 || url.includes('#')) return null
  const query = url.indexOf('?', start)
  const path = query < 0 ? url.slice(start) : url.slice(start, query)
  return path.length > 1 && !path.endsWith('/') && !path.includes('%') ? path : null
}

/** Builds a panel: resolution errors, a failed migration or a bad setup all throw before anything is served. */
export async function createPanel(options: PanelOptions): Promise<Panel> {
  if (options.secret.length < 32) throw new Error('The panel secret must be at least 32 characters long')
  const basePath = options.basePath ?? '/api/v1'
  const docsPath = options.docsPath ?? '/api/docs'
  const limits = resolveLimits(options.limits)
  const { store } = options
  let isReady = false
  const healthRoutes = kernelRoutes(async () => isReady && store.isOpen)
  const kernelProblemList = { ...kernelProblems, ...userProblems, ...jobProblems, ...quotaProblems }
  const defaultCustomerLimits = checkQuotaLimits(options.defaultCustomerLimits ?? {})
  const kernel = {
    problemCodes: Object.keys(kernelProblemList),
    scopes: kernelScopes.map((scope) => scope.name),
    routes: healthRoutes,
  }
  const plugins = resolvePlugins(options.plugins, options.overrides ?? [], kernel)

  const migrationSets: MigrationSet[] = [
    { owner: 'kernel', migrations: kernelMigrations },
    ...plugins.map((plugin) => ({ owner: plugin.name, migrations: plugin.migrations ?? [] })),
  ]
  await migrate(store, migrationSets)

  const knownEvents: KnownEvent[] = [
    ...kernelEvents,
    ...plugins.flatMap((plugin) => (plugin.events ?? []).map((event) => ({ ...event, owner: plugin.name }))),
  ]
  const jobRegistry = new Map<string, RegisteredJob>()
  const jobRunnerOptions = { ...defaultJobRunnerOptions, ...options.jobs }
  /** Starts a job in `trx`; the kernel's one way in, for routes (with the caller) and plugins (as the system). */
  const enqueueJob = async (trx: Trx, job: JobRequest, requester: JobRequester): Promise<string> => {
    const registered = jobRegistry.get(job.kind)
    if (!registered) throw new Error(`No plugin runs jobs of kind "${job.kind}"`)
    const maxAttempts = registered.definition.maxAttempts ?? defaultMaxAttempts
    return insertJob(trx, job, { maxAttempts, requester, now: new Date() })
  }
  const system = { userId: null, tokenId: null, requestId: null }
  const quotas = createQuotas(defaultCustomerLimits, () => runtime.service(customerLimitsService))
  const runtime = createPluginRuntime(store, plugins, {
    quotas,
    writeEvent: async (trx, event) => {
      await writeEvent(trx, event)
      // Written outside a request: wake the dispatcher once the caller's transaction has likely committed.
      setTimeout(() => dispatcher.nudge(), 0)
    },
    secrets: createSecretBox(options.secret),
    knownEvents: () => knownEvents,
    enqueueJob: async (trx, job) => {
      const id = await enqueueJob(trx, job, system)
      // Started outside a request: wake the workers once the caller's transaction has likely committed.
      setTimeout(() => runner.nudge(), 0)
      return id
    },
    audit: (trx, entry) => writeAudit(trx, { ...system, sourceAddress: null }, entry),
  })
  for (const plugin of plugins) await plugin.setup?.(runtime.contextFor(plugin.name))
  runtime.seal()
  for (const plugin of plugins) {
    const eventKinds = new Set((plugin.events ?? []).map((event) => event.kind))
    for (const definition of plugin.jobs?.(runtime.contextFor(plugin.name)) ?? []) {
      const existing = jobRegistry.get(definition.kind)
      if (existing)
        throw new PluginResolutionError(
          `Job kind "${definition.kind}" is declared by both "${existing.plugin}" and "${plugin.name}"`,
        )
      jobRegistry.set(definition.kind, { definition, plugin: plugin.name, eventKinds })
    }
  }
  const dispatcher = createDispatcher(store, runtime.consumers, {
    ...defaultDispatcherOptions,
    ...options.events,
  })
  const runner = createJobRunner(store, jobRegistry, jobRunnerOptions, { finished: () => dispatcher.nudge() })

  const scopeList = [
    ...kernelScopes.map((scope) => ({ ...scope, plugin: 'kernel' })),
    ...plugins.flatMap((plugin) => (plugin.scopes ?? []).map((scope) => ({ ...scope, plugin: plugin.name }))),
  ]
  const scopes = new Set(scopeList.map((scope) => scope.name))
  const holdings = scopeList.map((scope) => ({
    name: scope.name,
    staff: Boolean(scope.staff),
    platformOnly: scope.staff === 'platform',
  }))
  const identity = identityRoutes({
    store,
    secret: options.secret,
    limits,
    scopes,
    throttle: createLoginThrottle({ ...defaultLoginThrottle, ...options.loginThrottle }),
    tenantDirectory: () => runtime.service(tenantDirectoryService),
    brandDirectory: () => runtime.service(brandDirectoryService),
  })
  const routesByPlugin = plugins.map((plugin) => ({
    plugin: plugin.name,
    routes: plugin.routes?.(runtime.contextFor(plugin.name)) ?? [],
  }))
  const capabilities = capabilitiesRoutes(
    {
      version: options.version ?? '0.1.0',
      plugins: plugins.map((plugin) => ({
        name: plugin.name,
        version: plugin.version,
        capabilities: plugin.capabilities?.(runtime.contextFor(plugin.name)) ?? {},
      })),
      eventKinds: knownEvents.map((event) => event.kind),
      rateLimitPerMinute: options.rateLimits?.perMinute ?? defaultRateLimits.perMinute,
      defaultCustomerLimits,
    },
    limits,
    { db: store.db, service: quotas },
  )
  // The kernel's own operations under the API base path, by OpenAPI tag.
  const kernelApi = [
    { tag: 'identity', routes: identity },
    { tag: 'audit', routes: auditRoutes(store) },
    { tag: 'jobs', routes: jobRoutes(store, jobRegistry, () => dispatcher.nudge()) },
    { tag: 'kernel', routes: [...capabilities, ...usageRoutes(store, quotas)] },
  ]
  checkRoutes(
    routesByPlugin,
    { ...kernel, routes: [...healthRoutes, ...kernelApi.flatMap((group) => group.routes)] },
    scopes,
  )

  const infos = new WeakMap<Request, RequestInfo>()
  const infoOf = (request: Request, address: string | null = null): RequestInfo => {
    const known = infos.get(request)
    // A host that knows the address wins over a first sighting that did not (e.g. Elysia's own server).
    if (known && (known.address !== null || address === null)) return known
    const info = { requestId: known?.requestId ?? newId('req'), address }
    infos.set(request, info)
    return info
  }
  const pipelineRuntime = {
    store,
    auth: { db: store.db, secret: options.secret, scopes: holdings },
    bodyLimitBytes: limits.bodyBytes,
    basePath,
    idempotencyWindowMs: limits.idempotencyWindowHours * 3_600_000,
    idempotencyBox: createSecretBox(options.secret, 'plinth idempotent answers v1'),
    enqueueJob,
    committed: (work: { jobs: boolean; events: boolean }) => {
      if (work.jobs) runner.nudge()
      if (work.events) dispatcher.nudge()
    },
  }
  const mounted: MountedRoute[] = []
  const known: KnownRoute[] = []
  const app = new Elysia({ name: 'plinth' })

  const limiter = createRateLimiter({ ...defaultRateLimits, ...options.rateLimits })
  /** Routes without path parameters, by `METHOD /path`: most requests, answered without the router. */
  const direct = new Map<
    string,
    (request: Request, params: Record<string, string>, info: RequestInfo) => Promise<Response>
  >()
  const staffScopes = new Set(holdings.filter((scope) => scope.staff).map((scope) => scope.name))
  const mount = (
    declared: RouteDefinition,
    tag: string,
    fullPath: string,
    eventKinds: ReadonlySet<string>,
  ) => {
    // A route needing a staff scope is a staff area whether or not it says so: no plugin can forget it.
    const route = declared.scope && staffScopes.has(declared.scope) ? { ...declared, staff: true } : declared
    const compiled = compileRoute(route, tag, pipelineRuntime, eventKinds)
    const serve = async (
      request: Request,
      params: Record<string, string>,
      info: RequestInfo,
    ): Promise<Response> => {
      try {
        const rate =
          route.public && !route.strictRateLimit
            ? null
            : limiter.take(request, info.address, route.strictRateLimit === true)
        if (rate?.refusal) return rate.refusal.toResponse(info.requestId)
        try {
          return await compiled.answer(request, params, info, rate?.headers)
        } catch (error) {
          const response = errorResponse(error, info.requestId)
          for (const [name, value] of Object.entries(rate?.headers ?? {})) response.headers.set(name, value)
          return response
        }
      } catch (error) {
        return errorResponse(error, info.requestId)
      }
    }
    app.route(
      route.method,
      fullPath,
      ({ request, params, server }) => {
        // The address the host passed wins; asking the server is for Elysia's own listener.
        const known = infos.get(request)
        const info = known?.address ? known : infoOf(request, server?.requestIP(request)?.address ?? null)
        // Elysia gives routes without path parameters `undefined`; the direct path gives `{}`. One value, so a cursor
        // (bound to the parameters) works whichever way the request came.
        return serve(request, (params ?? {}) as Record<string, string>, info)
      },
      { parse: 'none', detail: { operationId: route.operationId } },
    )
    // Paths without parameters are answered by `handle` without the router (see `staticPathOf`).
    if (!fullPath.includes(':')) direct.set(`${route.method} ${fullPath}`, serve)
    mounted.push({ route, fullPath, tag })
    known.push({ method: route.method, pattern: routePattern(fullPath) })
  }
  for (const route of healthRoutes) mount(route, 'kernel', route.path, new Set())
  for (const { tag, routes } of kernelApi) {
    for (const route of routes) mount(route, tag, `${basePath}${route.path}`, new Set())
  }
  for (const [index, { plugin, routes }] of routesByPlugin.entries()) {
    const eventKinds = new Set((plugins[index]?.events ?? []).map((event) => event.kind))
    for (const route of routes) mount(route, plugin, `${basePath}${route.path}`, eventKinds)
  }

  const problems: (ProblemRef & { owner: string })[] = [
    ...Object.values(kernelProblemList).map((problem) => ({ ...problem, owner: 'kernel' })),
    ...plugins.flatMap((plugin) =>
      Object.values(plugin.problems ?? {}).map((problem) => ({ ...problem, owner: plugin.name })),
    ),
  ]
  const document = buildDocument({
    app,
    version: options.version ?? '0.1.0',
    serverUrl: options.serverUrl ?? '/',
    routes: mounted,
    tags: [
      { name: 'kernel', description: 'Health, readiness, capabilities and usage of the installation.' },
      { name: 'identity', description: 'Signing in, the caller, API tokens, users and staff.' },
      { name: 'audit', description: 'The audit log: who changed what, when and from where.' },
      {
        name: 'jobs',
        description: 'Background work (provisioning, deletion, ...): status, progress, cancelling.',
      },
      ...plugins.map((plugin) => ({ name: plugin.name, description: plugin.description })),
    ],
    scopes: scopeList,
    problems,
    events: knownEvents,
  })
  const documentJson = JSON.stringify(document)

  const docsPage = docsPageHtmlFor(docsPath)
  app
    .get(
      docsPath,
      ({ request }) => {
        // The page's links are relative to the docs path; with a trailing slash they would resolve one level down.
        if (new URL(request.url).pathname.endsWith('/')) {
          return new Response(null, { status: 308, headers: { location: docsPath.split('/').at(-1) ?? '' } })
        }
        return prefersHtml(request.headers.get('accept'))
          ? new Response(docsPage, {
              headers: { 'content-type': 'text/html; charset=utf-8', vary: 'Accept' },
            })
          : new Response(documentJson, { headers: { 'content-type': 'application/json', vary: 'Accept' } })
      },
      { detail: { hide: true } },
    )
    .get(
      `${docsPath}/openapi.json`,
      () => new Response(documentJson, { headers: { 'content-type': 'application/json' } }),
      {
        detail: { hide: true },
      },
    )
    .get(
      `${docsPath}/assets/:name`,
      ({ params, request }) =>
        docsAsset(params.name) ?? new Problem(kernelProblems.not_found).toResponse(infoOf(request).requestId),
      { detail: { hide: true } },
    )
    .onError(({ code, error, request }) => {
      const { requestId } = infoOf(request)
      if (code === 'NOT_FOUND') return notFoundProblem(request, known).toResponse(requestId)
      return errorResponse(error, requestId)
    })
  known.push(
    { method: 'GET', pattern: routePattern(docsPath) },
    { method: 'GET', pattern: routePattern(`${docsPath}/openapi.json`) },
  )

  isReady = await migrationsApplied(store, migrationSets)
  let started = false
  const backgroundTasks: BackgroundTask[] = []
  return {
    app: app as unknown as Elysia,
    async handle(request, info) {
      const path = staticPathOf(request.url)
      const serve = path === null ? undefined : direct.get(`${request.method} ${path}`)
      if (serve) return serve(request, {}, { requestId: newId('req'), address: info?.address ?? null })
      infoOf(request, info?.address ?? null)
      return app.handle(request)
    },
    document,
    store,
    limits,
    secret: options.secret,
    plugins: plugins.map(({ name, version }) => ({ name, version })),
    scopes,
    problems,
    callerOf: (user) => buildCaller(store.db, user, { session: { id: 'cli' } }, holdings),
    service: (ref) => runtime.service(ref),
    start() {
      if (started) return
      started = true
      runner.start()
      dispatcher.start()
      for (const plugin of plugins) {
        const stop = plugin.start?.(runtime.contextFor(plugin.name))
        if (stop) backgroundTasks.push(stop)
      }
    },
    async close() {
      isReady = false
      // Plugins first (they may deliver what the dispatcher hands over), then the dispatcher, then the workers.
      for (const stop of backgroundTasks.splice(0).reverse()) await stop()
      await dispatcher.stop()
      await runner.stop()
      await store.close()
    },
  }
}
