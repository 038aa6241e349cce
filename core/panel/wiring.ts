// Wiring: every plugin's routes (the kernel's areas' too) compiled into the request pipeline, checked against each
// other, mounted on the router, and described in the OpenAPI document.

import { writeAudit } from '../audit/audit-log.ts'
import { createSecretBox } from '../crypto/secret-box.ts'
import type { ContractChecks } from '../http/contract-checks.ts'
import type { RateLimiter } from '../http/rate-limiter.ts'
import { type CompiledRoute, compileRoute, type PipelineRuntime } from '../http/route-pipeline.ts'
import { buildDocument } from '../openapi/build-document.ts'
import { type CustomerResource, customerResourcesOf } from '../plugin/customer-resources.ts'
import type { Logger, PluginContext, PluginDefinition } from '../plugin/define-plugin.ts'
import { checkRoutes } from '../plugin/resolve-plugins.ts'
import type { RouteDefinition } from '../plugin/route.ts'
import { webRoutePathProblem } from '../plugin/web-route.ts'
import { kernelVersion } from '../version.ts'
import type { Background } from './background.ts'
import type { Catalogue } from './catalogue.ts'
import type { PanelLimits } from './limits.ts'
import { metricsEndpoint, type PanelMetrics } from './metrics.ts'
import type { PanelOptions } from './panel-options.ts'
import { createRouter, type MountedCompiledRoute, type PlainEndpoint, type RequestRecord } from './router.ts'

/** Mounts every route; returns the panel's `handle`, its router and its document. */
export function mountPanel(input: {
  readonly plugins: readonly PluginDefinition[]
  /** The kernel's health routes, at absolute paths and never rate limited. */
  readonly health: readonly RouteDefinition[]
  readonly contextFor: (plugin: string) => PluginContext
  readonly catalogue: Catalogue
  readonly background: Background
  /** Filled with the DELETE routes whose records go with their customer. */
  readonly customerResources: CustomerResource[]
  readonly limiter: RateLimiter
  readonly contractChecks: ContractChecks | null
  readonly log: Logger
  readonly metrics: PanelMetrics
  /** Aborts when the panel begins to stop. */
  readonly stopping: AbortSignal
  readonly options: PanelOptions & { readonly basePath: string; readonly limits: PanelLimits }
}) {
  const { options, catalogue, background, metrics } = input
  const routesByPlugin = input.plugins.map((plugin) => ({
    plugin: plugin.name,
    routes: plugin.routes?.(input.contextFor(plugin.name)) ?? [],
  }))
  const webRoutes = input.plugins.flatMap((plugin) => {
    const routes = plugin.webRoutes?.(input.contextFor(plugin.name)) ?? []
    for (const route of routes) {
      const problem = webRoutePathProblem(route.path)
      if (problem) throw new Error(`plugin ${plugin.name}: web route ${route.path} ${problem}`)
    }
    return routes
  })
  for (const { plugin, routes } of routesByPlugin)
    input.customerResources.push(...customerResourcesOf(plugin, routes))
  checkRoutes(
    routesByPlugin,
    { problemCodes: [], scopes: [], routes: input.health, basePath: options.basePath },
    catalogue.scopeNames,
  )

  const staffScopes = new Set(catalogue.holdings.filter((scope) => scope.staff).map((scope) => scope.name))
  const runtime: PipelineRuntime = {
    store: options.store,
    auth: { db: options.store.db, secret: options.secret, scopes: catalogue.holdings },
    bodyLimitBytes: options.limits.bodyBytes,
    basePath: options.basePath,
    idempotencyWindowMs: options.limits.idempotencyWindowHours * 3_600_000,
    idempotencyBox: createSecretBox(options.secret, 'plinth idempotent answers v1'),
    enqueueJob: (trx, job, requester) => background.enqueueJob(trx, job, requester),
    audit: writeAudit,
    countersOf: (plugin) => input.contextFor(plugin),
    committed: (work) => background.committed(work),
    contractChecks: input.contractChecks,
    limiter: input.limiter,
    rateLimited: (key) =>
      metrics.rateLimited('credential' in key ? 'credential' : 'login' in key ? 'login' : 'address'),
    log: input.log,
    stopping: input.stopping,
  }
  const mounted: (MountedCompiledRoute & { readonly tag: string })[] = []
  const readsByPath = new Map<string, CompiledRoute>()
  const mount = (
    declared: RouteDefinition,
    tag: string,
    fullPath: string,
    eventKinds: ReadonlySet<string>,
  ) => {
    // A route needing a staff scope is a staff area whether or not it says so: no plugin can forget it.
    const route = declared.scope && staffScopes.has(declared.scope) ? { ...declared, staff: true } : declared
    // If-Match on a change compares with the single-resource read of the same path, found once all are compiled.
    const compiled = compileRoute(route, tag, runtime, eventKinds, {
      sibling: () => readsByPath.get(fullPath),
    })
    if (route.method === 'GET' && !route.list) readsByPath.set(fullPath, compiled)
    mounted.push({ compiled, fullPath, tag })
  }
  for (const route of input.health) mount(route, 'kernel', route.path, new Set())
  for (const [index, { plugin, routes }] of routesByPlugin.entries()) {
    const eventKinds = new Set((input.plugins[index]?.events ?? []).map((event) => event.kind))
    for (const route of routes) mount(route, plugin, `${options.basePath}${route.path}`, eventKinds)
  }

  // `/metrics` (unless the embedder turned it off) and the request series behind it; then the host's own observer.
  const served = options.metrics !== false
  const endpoints: PlainEndpoint[] = served
    ? [{ path: '/metrics', answer: metricsEndpoint(metrics, options.metrics?.token ?? null) }]
    : []
  const hostObserve = options.observe
  const observe: ((record: RequestRecord) => void) | undefined = !served
    ? hostObserve
    : hostObserve
      ? (record) => {
          metrics.observeRequest(record)
          hostObserve(record)
        }
      : metrics.observeRequest

  let document: Readonly<Record<string, unknown>> = {}
  const router = createRouter({
    routes: mounted,
    docsPath: options.docsPath ?? '/api/docs',
    basePath: options.basePath,
    observe,
    log: input.log,
    endpoints,
    webRoutes,
    describe: (app) => {
      document = buildDocument({
        app,
        version: options.version ?? kernelVersion,
        serverUrl: options.serverUrl ?? '/',
        routes: mounted.map(({ compiled, fullPath, tag }) => ({ route: compiled.route, fullPath, tag })),
        tags: input.plugins.map((plugin) => ({ name: plugin.name, description: plugin.description })),
        scopes: catalogue.scopes,
        problems: catalogue.problems,
        events: catalogue.events,
      })
      return JSON.stringify(document)
    },
  })
  return { handle: router.handle, router: router.app, document }
}
