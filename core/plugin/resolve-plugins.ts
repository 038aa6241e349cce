// Resolves the plugin list before anything is mounted: duplicates, overrides, dependency order and conflicts.

import type { PluginDefinition } from './define-plugin.ts'
import { PluginResolutionError } from './plugin-resolution-error.ts'
import type { RouteDefinition } from './route.ts'

export { PluginResolutionError }

const pluginNamePattern = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/
const scopeNamePattern = /^[a-z][a-z0-9-]*:[a-z][a-z0-9-]*$/
// `resource.pastTenseVerb`; the resource camelCase or with single underscores (`database_user.created`).
const eventKindPattern = /^[a-z][a-zA-Z0-9]*(_[a-z0-9][a-zA-Z0-9]*)*\.[a-z][a-zA-Z0-9]*$/

/** `/sites/:id` and `/sites/:siteId` are the same route to a router. */
function routeKey(method: string, path: string): string {
  return `${method} ${path.replace(/:[^/]+/g, ':param')}`
}

const usageNamePattern = /^[a-z][a-zA-Z0-9]*$/

/**
 * Refuses two routes that name a parameter differently at the same place (`/sites/:id` and `/sites/:siteId/cron`):
 * the router cannot hold both, and would refuse them only at the first request, answering 500 everywhere.
 */
function parameterNamer() {
  const names = new Map<string, { name: string; label: string }>()
  return (path: string, label: string): void => {
    const segments = path.split('/')
    segments.forEach((segment, index) => {
      if (!segment.startsWith(':')) return
      const place = segments
        .slice(0, index)
        .map((part) => (part.startsWith(':') ? ':' : part))
        .join('/')
      const known = names.get(place)
      if (known && known.name !== segment) {
        throw new PluginResolutionError(
          `Route ${label} names the parameter "${segment}" where ${known.label} names "${known.name}" (${place}/…); use one name at one place`,
        )
      }
      if (!known) names.set(place, { name: segment, label })
    })
  }
}

function replaceOverrides(
  plugins: readonly PluginDefinition[],
  overrides: readonly PluginDefinition[],
): PluginDefinition[] {
  const byName = new Map<string, PluginDefinition>()
  for (const plugin of plugins) {
    if (!pluginNamePattern.test(plugin.name)) {
      throw new PluginResolutionError(`Plugin name "${plugin.name}" must be kebab-case (e.g. "billing")`)
    }
    const existing = byName.get(plugin.name)
    if (existing) {
      throw new PluginResolutionError(
        `Two plugins are named "${plugin.name}" (versions ${existing.version} and ${plugin.version}); ` +
          'to replace a plugin, pass the new one in `overrides`',
      )
    }
    byName.set(plugin.name, plugin)
  }
  const overridden = new Set<string>()
  for (const override of overrides) {
    const original = byName.get(override.name)
    if (!original) {
      throw new PluginResolutionError(
        `Override "${override.name}" replaces nothing: no plugin of that name is mounted`,
      )
    }
    if (overridden.has(override.name)) {
      throw new PluginResolutionError(`Plugin "${override.name}" is overridden twice`)
    }
    overridden.add(override.name)
    checkSameContract(original, override)
    byName.set(override.name, override)
  }
  return plugins.map((plugin) => byName.get(plugin.name) ?? plugin)
}

/** An override stands in for the original: every scope and event kind others may rely on must still exist. */
function checkSameContract(original: PluginDefinition, override: PluginDefinition): void {
  const scopes = new Set((override.scopes ?? []).map((scope) => scope.name))
  const missingScopes = (original.scopes ?? []).filter((scope) => !scopes.has(scope.name)).map((s) => s.name)
  const events = new Set((override.events ?? []).map((event) => event.kind))
  const missingEvents = (original.events ?? []).filter((event) => !events.has(event.kind)).map((e) => e.kind)
  const points = new Set((override.extensionPoints ?? []).map((point) => point.id))
  const missingPoints = (original.extensionPoints ?? [])
    .filter((point) => !points.has(point.id))
    .map((p) => p.id)
  const missing = [...missingScopes, ...missingEvents, ...missingPoints]
  if (missing.length > 0) {
    throw new PluginResolutionError(
      `Override "${override.name}" does not honour the contract of the plugin it replaces: missing ${missing.join(', ')}`,
    )
  }
}

/** Orders plugins so each comes after what it requires or enhances; keeps the given order otherwise. */
function orderByRequires(plugins: readonly PluginDefinition[]): PluginDefinition[] {
  const byName = new Map(plugins.map((plugin) => [plugin.name, plugin]))
  for (const plugin of plugins) {
    for (const required of plugin.requires ?? []) {
      if (!byName.has(required)) {
        throw new PluginResolutionError(
          `Plugin "${plugin.name}" requires "${required}", which is not mounted`,
        )
      }
    }
  }
  const ordered: PluginDefinition[] = []
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (plugin: PluginDefinition, path: string[]): void => {
    const seen = state.get(plugin.name)
    if (seen === 'done') return
    if (seen === 'visiting') {
      const cycle = [...path.slice(path.indexOf(plugin.name)), plugin.name]
      throw new PluginResolutionError(`Plugins require each other in a cycle: ${cycle.join(' → ')}`)
    }
    state.set(plugin.name, 'visiting')
    // What it enhances comes first too, when mounted: an absent one was never a requirement.
    for (const required of [...(plugin.requires ?? []), ...(plugin.enhances ?? [])]) {
      const dependency = byName.get(required)
      if (dependency) visit(dependency, [...path, plugin.name])
    }
    state.set(plugin.name, 'done')
    ordered.push(plugin)
  }
  for (const plugin of plugins) visit(plugin, [])
  return ordered
}

/** Claims names in one namespace (routes, scopes, ...) and refuses a second claim, naming both claimants. */
function claimer(what: string) {
  const owners = new Map<string, string>()
  return (name: string, owner: string): void => {
    const existing = owners.get(name)
    if (existing !== undefined) {
      throw new PluginResolutionError(`${what} "${name}" is declared by both "${existing}" and "${owner}"`)
    }
    owners.set(name, owner)
  }
}

/** What the kernel itself declares, so plugins cannot take its names either. */
export interface KernelDeclarations {
  readonly problemCodes: readonly string[]
  readonly scopes: readonly string[]
  readonly routes: readonly RouteDefinition[]
  /** Where the kernel mounts plugin routes (`/api/v1`), to compare their paths with the kernel's own. */
  readonly basePath: string
}

/**
 * Checks and orders the plugins a panel will mount. Throws {@link PluginResolutionError} on a duplicate name,
 * a bad override, a missing requirement, a cycle, or a scope, event kind, problem code or extension point
 * declared twice. Routes are checked by {@link checkRoutes} once plugins have made them.
 */
export function resolvePlugins(
  plugins: readonly PluginDefinition[],
  overrides: readonly PluginDefinition[],
  kernel: KernelDeclarations,
): PluginDefinition[] {
  const ordered = orderByRequires(replaceOverrides(plugins, overrides))
  const claimScope = claimer('Scope')
  const claimEvent = claimer('Event kind')
  const claimProblem = claimer('Problem code')
  const claimPoint = claimer('Extension point')
  for (const code of kernel.problemCodes) claimProblem(code, 'kernel')
  for (const scope of kernel.scopes) claimScope(scope, 'kernel')
  const claimMetric = claimer('Usage metric')
  for (const plugin of ordered) {
    for (const scope of plugin.scopes ?? []) {
      if (!scopeNamePattern.test(scope.name)) {
        throw new PluginResolutionError(`Scope "${scope.name}" of "${plugin.name}" must read resource:action`)
      }
      if (scope.staff && scope.roles)
        throw new PluginResolutionError(
          `Staff scope "${scope.name}" of "${plugin.name}" cannot name team roles`,
        )
      if (scope.roles && !scope.roles.includes('owner'))
        throw new PluginResolutionError(
          `Scope "${scope.name}" of "${plugin.name}" leaves out owner, who holds every customer scope`,
        )
      claimScope(scope.name, plugin.name)
    }
    const problems = new Set(Object.values(plugin.problems ?? {}).map((problem) => problem.code))
    // Metrics and sections share the keys of /usage; `quota` is the kernel's.
    for (const metric of plugin.usage ?? []) {
      if (!usageNamePattern.test(metric.name) || metric.name === 'quota')
        throw new PluginResolutionError(
          `Usage metric "${metric.name}" of "${plugin.name}" must be camelCase, not quota`,
        )
      if (metric.quota && !problems.has(metric.quota.problem.code))
        throw new PluginResolutionError(
          `Usage metric "${metric.name}" of "${plugin.name}" refuses with "${metric.quota.problem.code}", which it does not declare in its problems`,
        )
      claimMetric(metric.name, plugin.name)
    }
    for (const section of plugin.usageSections ?? []) {
      if (!usageNamePattern.test(section.name) || section.name === 'quota')
        throw new PluginResolutionError(
          `Usage section "${section.name}" of "${plugin.name}" must be camelCase, not quota`,
        )
      claimMetric(section.name, plugin.name)
    }
    for (const event of plugin.events ?? []) {
      if (!eventKindPattern.test(event.kind)) {
        throw new PluginResolutionError(
          `Event kind "${event.kind}" of "${plugin.name}" must read resource.pastTenseVerb`,
        )
      }
      claimEvent(event.kind, plugin.name)
    }
    for (const code of Object.keys(plugin.problems ?? {})) claimProblem(code, plugin.name)
    for (const point of plugin.extensionPoints ?? []) {
      if (point.owner !== plugin.name) {
        throw new PluginResolutionError(
          `Plugin "${plugin.name}" declares extension point "${point.id}" owned by "${point.owner}"`,
        )
      }
      claimPoint(point.id, plugin.name)
    }
  }
  return ordered
}

/** Refuses a declaration the kernel cannot serve or document as declared. */
function checkShape(route: RouteDefinition, label: string): void {
  if (route.list) {
    if (route.method !== 'GET') throw new PluginResolutionError(`${label} is a list but not a GET`)
    const filters = Object.keys(route.query?.properties ?? {})
    if (filters.includes('cursor') || filters.includes('limit'))
      throw new PluginResolutionError(`${label} declares cursor or limit; the kernel adds them to every list`)
  } else if (!route.responses || Object.keys(route.responses).length === 0) {
    throw new PluginResolutionError(`${label} declares no responses`)
  }
  // Whether a creating POST honours Idempotency-Key is part of its contract: a client must know if a retry is safe.
  if (route.method === 'POST' && route.responses?.[201] && route.idempotent === undefined)
    throw new PluginResolutionError(`${label} answers 201 but does not say whether it is idempotent`)
}

/** Checks the routes of every plugin once they are made: a repeated route or operation id fails start-up. */
export function checkRoutes(
  routesByPlugin: readonly { readonly plugin: string; readonly routes: readonly RouteDefinition[] }[],
  kernel: KernelDeclarations,
  knownScopes: ReadonlySet<string>,
): void {
  const claimRoute = claimer('Route')
  const claimOperation = claimer('Operation id')
  const nameParameters = parameterNamer()
  for (const route of kernel.routes) {
    claimRoute(routeKey(route.method, route.path), 'kernel')
    claimOperation(route.operationId, 'kernel')
    nameParameters(route.path, `${route.method} ${route.path} of "kernel"`)
  }
  for (const { plugin, routes } of routesByPlugin) {
    for (const route of routes) {
      const label = `${route.method} ${route.path}`
      checkShape(route, `Route ${label} of "${plugin}"`)
      nameParameters(`${kernel.basePath}${route.path}`, `${label} of "${plugin}"`)
      const modes = [route.public === true, route.authenticated === true, Boolean(route.scope)].filter(
        Boolean,
      ).length
      if (modes === 0) {
        throw new PluginResolutionError(
          `Route ${label} of "${plugin}" declares neither a scope nor public: true (nor authenticated: true)`,
        )
      }
      if (modes > 1) {
        throw new PluginResolutionError(
          `Route ${label} of "${plugin}" declares more than one of scope, public: true and authenticated: true`,
        )
      }
      if (route.scope && !knownScopes.has(route.scope)) {
        throw new PluginResolutionError(
          `Route ${label} of "${plugin}" needs scope "${route.scope}", which no plugin declares`,
        )
      }
      claimRoute(routeKey(route.method, route.path), plugin)
      claimOperation(route.operationId, plugin)
    }
  }
}
