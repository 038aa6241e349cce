// A site's effective limits: its own (staff's), else its customer's plan's, else its node's defaults; what its node
// is given in the site spec and what `GET /sites/{id}/limits` and `/resources` show, each with where it came from.

import {
  type Db,
  enumOf,
  type PlanSettingDefinition,
  type Quotas,
  type ResourceLimitDefinition,
  type Static,
  t,
} from '../../core/index.ts'
import { type Node, siteLimitRanges } from '../nodes/contract.ts'
import type { SitesTable } from './migrations.ts'

/** The limits of a site's processes that plans set for each site and staff may set for one. */
export const siteLimitNames = ['cpuPercent', 'memoryMB', 'processes'] as const
export type SiteLimitName = (typeof siteLimitNames)[number]

/** What plans' `limits` gain for each of the customer's sites (the sites plugin's `resourceLimits`). */
export const siteResourceLimits: readonly ResourceLimitDefinition[] = [
  {
    name: 'cpuPercent',
    description:
      'CPU each of the customer’s sites may take, in percent of one core (100 = one core, 250 = two and a half), 1 to 100000. Per site, unlike `diskMB`.',
    ...siteLimitRanges.cpuPercent,
  },
  {
    name: 'memoryMB',
    description:
      'Memory each of the customer’s sites may take, in MB, 16 to 100000000: all its processes together (PHP, jobs, shell, SFTP, cron), its temporary space in memory included. Per site.',
    ...siteLimitRanges.memoryMB,
  },
  {
    name: 'processes',
    description:
      'Processes (and threads) each of the customer’s sites may run at once, 1 to 4194304 (the kernel’s most). Per site.',
    ...siteLimitRanges.processes,
  },
]

/** The columns of a site's own limits, none set: it takes its plan's or its node's. */
export const noOwnLimits = {
  cpu_percent: null,
  memory_mb: null,
  processes: null,
  applied_limits: null,
} as const

/** The column of each of a site's own limits. */
export const ownLimitColumns = {
  cpuPercent: 'cpu_percent',
  memoryMB: 'memory_mb',
  processes: 'processes',
} as const satisfies Record<SiteLimitName, keyof SitesTable>

/** Where an effective limit comes from. */
export const limitSources = ['site', 'plan', 'node', 'none'] as const
export type LimitSource = (typeof limitSources)[number]

/** One effective limit: its value (null: unlimited) and where it came from. */
export interface EffectiveLimit {
  readonly value: number | null
  readonly source: LimitSource
}

/** A site's effective limits, the three its processes take and its disk quota. */
export type EffectiveLimits = Readonly<Record<SiteLimitName | 'diskMB', EffectiveLimit>>

/** What a site's node is told of the limits it runs under: the limits and the PHP functions its plan allows. */
export interface SiteRunLimits {
  readonly limits: EffectiveLimits
  /** PHP functions the node disables by default that the site's plan lets it call, sorted. */
  readonly allowFunctions: readonly string[]
}

/** The most PHP functions a plan may allow (as many as a node accepts in a spec). */
export const maxAllowedFunctions = 64

/** The plan setting `php`: what a plan relaxes of PHP's hardening for its sites. */
export const phpPlanSetting: PlanSettingDefinition = {
  name: 'php',
  description:
    'PHP for the plan’s sites: `allowFunctions`, functions the node disables by default (`exec`, `proc_open`, `shell_exec`, …) that its sites may call. Several plans held at once allow what any of them does.',
  schema: t.Object(
    {
      allowFunctions: t.Array(
        t.String({ pattern: '^[a-z_][a-z0-9_]{0,63}$', description: 'A PHP function name, lower case.' }),
        {
          maxItems: maxAllowedFunctions,
          uniqueItems: true,
          description: 'PHP functions the node disables by default that the plan’s sites may call.',
        },
      ),
    },
    { $id: 'PlanPhp' },
  ),
  combine(values) {
    const names = new Set<string>()
    for (const value of values) for (const name of allowedIn(value)) names.add(name)
    return { allowFunctions: [...names].sort().slice(0, maxAllowedFunctions) }
  },
}

/** The function names a `php` setting allows (none when it is not one). */
function allowedIn(value: unknown): readonly string[] {
  const list = (value as { allowFunctions?: unknown } | null)?.allowFunctions
  return Array.isArray(list) ? list.filter((name): name is string => typeof name === 'string') : []
}

const EffectiveLimitSchema = (what: string) =>
  t.Object(
    {
      value: t.Union([t.Integer({ minimum: 0 }), t.Null()], { description: `${what}; null: unlimited.` }),
      source: enumOf(limitSources, {
        description:
          'Where it comes from: `site` (staff set it for this site), `plan` (the customer’s plans, or the installation’s default customer limits without one), `node` (the node’s `siteDefaults`), `none` (nothing sets it: unlimited).',
      }),
    },
    { description: what },
  )

/** `GET /sites/{id}/limits`'s answer. */
export const SiteLimits = t.Object(
  {
    siteId: t.String({ description: 'The site, `site_…`.' }),
    cpuPercent: EffectiveLimitSchema('CPU the site’s processes may take together, in percent of one core'),
    memoryMB: EffectiveLimitSchema('Memory the site’s processes may take together, in MB'),
    processes: EffectiveLimitSchema('Processes (and threads) the site may run at once'),
    diskMB: EffectiveLimitSchema(
      'The site’s disk quota, in MB (its own `limits.diskMB`: a plan’s `diskMB` is the customer’s total, shared by its sites)',
    ),
    allowFunctions: t.Array(t.String(), {
      description:
        'PHP functions the node disables by default that the site may call, as its plan allows (`php.allowFunctions`); empty: none.',
    }),
  },
  {
    $id: 'SiteLimits',
    description:
      'The limits a site runs under, each the first set of: the site’s own (`limits`, staff), its customer’s plan (each site gets the plan’s), its node’s `siteDefaults`.',
  },
)
export type SiteLimits = Static<typeof SiteLimits>

/** The node's defaults for its sites, by limit. */
const nodeDefaultOf = (node: Node | null, name: SiteLimitName): number | null =>
  node ? node.siteDefaults[name] : null

/**
 * The limits `row`'s site runs under: its own, else its customer's plan's (`quotas.perResourceOf`), else its node's
 * defaults. Read through `db` (a transaction's `trx` inside one).
 */
export async function effectiveLimits(
  db: Db,
  quotas: Pick<Quotas, 'perResourceOf'>,
  row: SitesTable,
  node: Node | null,
): Promise<EffectiveLimits> {
  const plan = await quotas.perResourceOf(db, row.customer_id)
  const pick = (name: SiteLimitName): EffectiveLimit => {
    const own = row[ownLimitColumns[name]]
    if (own !== null) return { value: own, source: 'site' }
    const planned = plan[name]
    if (planned !== undefined) return { value: planned, source: 'plan' }
    const fallback = nodeDefaultOf(node, name)
    return fallback === null ? { value: null, source: 'none' } : { value: fallback, source: 'node' }
  }
  return {
    cpuPercent: pick('cpuPercent'),
    memoryMB: pick('memoryMB'),
    processes: pick('processes'),
    diskMB: row.disk_mb === null ? { value: null, source: 'none' } : { value: row.disk_mb, source: 'site' },
  }
}

/**
 * The limits and PHP functions `row`'s site runs under: {@link effectiveLimits}, and what its customer's plans allow
 * of PHP (`quotas.settingsOf`).
 */
export async function siteRunLimits(
  db: Db,
  quotas: Pick<Quotas, 'perResourceOf' | 'settingsOf'>,
  row: SitesTable,
  node: Node | null,
): Promise<SiteRunLimits> {
  const limits = await effectiveLimits(db, quotas, row, node)
  const settings = await quotas.settingsOf(db, row.customer_id)
  return { limits, allowFunctions: [...allowedIn(settings[phpPlanSetting.name])].sort() }
}

/** What a node is given of the limits (the site spec's members), and what `applied_limits` records. */
export function specLimitsOf(run: SiteRunLimits) {
  return {
    cpuPercent: run.limits.cpuPercent.value,
    memoryMB: run.limits.memoryMB.value,
    processes: run.limits.processes.value,
    allowFunctions: run.allowFunctions,
  }
}

/** Whether the node was last given other limits than `run` (or none recorded yet). */
export function limitsDiffer(row: SitesTable, run: SiteRunLimits): boolean {
  return row.applied_limits !== JSON.stringify(specLimitsOf(run))
}
