// The panel's catalogue: every scope, event kind, problem code and usage metric, with the plugin that declares it,
// read once from the resolved plugins. Authentication, the OpenAPI document, capabilities, usage, quotas and the
// generated docs all read it, so none of them names a plugin's resources.

import type { ScopeHolding } from '../auth/caller.ts'
import { defaultScopeRoles, type TeamRole, teamRoles } from '../auth/roles.ts'
import type { KnownEvent } from '../events/event-consumer.ts'
import type {
  PluginDefinition,
  ResourceLimitDefinition,
  ScopeDefinition,
  UsageMetricDefinition,
  UsageSection,
} from '../plugin/define-plugin.ts'
import type { ProblemRef } from '../problem/problem-code.ts'
import type { PlanSettingDefinition } from '../quotas/plan-settings.ts'
import type { LimitedMetric } from '../quotas/quotas.ts'

/** A declaration with the plugin that made it. */
export type Owned<T> = T & { readonly plugin: string }

/** What the panel declares, by owner. */
export interface Catalogue {
  readonly scopes: readonly Owned<ScopeDefinition>[]
  readonly scopeNames: ReadonlySet<string>
  /** Who may hold each scope, as authentication needs it. */
  readonly holdings: readonly ScopeHolding[]
  readonly events: readonly KnownEvent[]
  readonly problems: readonly (ProblemRef & { readonly owner: string })[]
  readonly usageMetrics: readonly Owned<UsageMetricDefinition>[]
  /** The usage metrics plans may limit, with their refusals. */
  readonly limitedMetrics: readonly LimitedMetric[]
  /** The limits plans set on each resource of a kind (each site), not on a customer's total. */
  readonly resourceLimits: readonly Owned<ResourceLimitDefinition>[]
  /** The settings plans may carry. */
  readonly planSettings: readonly Owned<PlanSettingDefinition>[]
  readonly usageSections: readonly Owned<UsageSection>[]
  /** Each team role with the scopes it holds on its customer (the generated roles table). */
  readonly roles: readonly { readonly role: TeamRole; readonly scopes: readonly string[] }[]
}

/** Reads the catalogue of resolved (checked, ordered) plugins. */
export function buildCatalogue(plugins: readonly PluginDefinition[]): Catalogue {
  const owned = <T>(plugin: PluginDefinition, list: readonly T[] | undefined): Owned<T>[] =>
    (list ?? []).map((item) => ({ ...item, plugin: plugin.name }))
  const scopes = plugins.flatMap((plugin) => owned(plugin, plugin.scopes))
  const holdings = scopes.map((scope) => ({
    name: scope.name,
    staff: Boolean(scope.staff),
    platformOnly: scope.staff === 'platform',
    roles: scope.staff ? [] : (scope.roles ?? defaultScopeRoles),
  }))
  const usageMetrics = plugins.flatMap((plugin) => owned(plugin, plugin.usage))
  return {
    scopes,
    scopeNames: new Set(scopes.map((scope) => scope.name)),
    holdings,
    events: plugins.flatMap((plugin) =>
      (plugin.events ?? []).map((event) => ({ ...event, owner: plugin.name })),
    ),
    problems: plugins.flatMap((plugin) =>
      Object.values(plugin.problems ?? {}).map((problem) => ({ ...problem, owner: plugin.name })),
    ),
    usageMetrics,
    limitedMetrics: usageMetrics.flatMap((metric) =>
      metric.quota
        ? [{ name: metric.name, description: metric.quota.description, problem: metric.quota.problem }]
        : [],
    ),
    resourceLimits: plugins.flatMap((plugin) => owned(plugin, plugin.resourceLimits)),
    planSettings: plugins.flatMap((plugin) => owned(plugin, plugin.planSettings)),
    usageSections: plugins.flatMap((plugin) => owned(plugin, plugin.usageSections)),
    roles: teamRoles.map((role) => ({
      role,
      scopes: holdings.filter((scope) => scope.roles.includes(role)).map((scope) => scope.name),
    })),
  }
}
