// What a site uses of each kind of resource, asked of its node live, against the limits it runs under: the answer of
// `GET /sites/{id}/resources` and what the limits check reads to tell a site that keeps hitting a limit.

import { enumOf, type Static, t } from '../../core/index.ts'
import {
  type Node,
  type NodeDirectory,
  nodeCommand,
  type ResourceKind,
  type ResourceUse,
  type SiteResources,
} from '../nodes/contract.ts'
import { type EffectiveLimit, type EffectiveLimits, limitSources } from './site-limits.ts'

/** The kinds of resource a site's answer has, in its order. */
export const resourceKinds = ['cpu', 'memory', 'processes', 'disk'] as const satisfies readonly ResourceKind[]

/** The unit the API gives each kind in (the node's are percent, bytes, tasks and bytes). */
const units = { cpu: 'percent', memory: 'MB', processes: 'processes', disk: 'MB' } as const

/** Which effective limit bounds each kind. */
const limitOfKind = {
  cpu: 'cpuPercent',
  memory: 'memoryMB',
  processes: 'processes',
  disk: 'diskMB',
} as const satisfies Record<ResourceKind, keyof EffectiveLimits>

const Use = (kind: ResourceKind, what: string) =>
  t.Object(
    {
      used: t.Number({
        minimum: 0,
        description: `Use now, in \`unit\`${kind === 'cpu' ? ' (over the node’s last reading interval)' : ''}.`,
      }),
      limit: t.Union([t.Integer({ minimum: 0 }), t.Null()], {
        description: 'The limit the site runs under, in `unit` (`GET /sites/{id}/limits`); null: unlimited.',
      }),
      source: enumOf(limitSources, {
        description: 'Where the limit comes from: `site`, `plan`, `node` (its defaults) or `none`.',
      }),
      hits24h: t.Integer({
        minimum: 0,
        description:
          'How often the limit was hit in the last 24 hours, as the node’s kernel counts it (throttled periods, failed allocations, refused forks, refused writes).',
      }),
      enforced: t.Boolean({
        description:
          'Whether the node enforces this kind. False: the limit is recorded and shown, not applied on this node (its capabilities say why).',
      }),
      unit: t.Literal(units[kind]),
    },
    { description: what },
  )

/** `GET /sites/{id}/resources`'s answer. */
export const SiteResourcesAnswer = t.Object(
  {
    siteId: t.String({ description: 'The site, `site_…`.' }),
    at: t.String({ format: 'date-time', description: 'When its node read them.' }),
    cpu: Use('cpu', 'CPU, in percent of one core (100 = one core busy).'),
    memory: Use(
      'memory',
      'Memory of all its processes together (its temporary space in memory included), in MB.',
    ),
    processes: Use('processes', 'Processes and threads running now.'),
    disk: Use('disk', 'Disk its files take, in MB, against its quota (`limits.diskMB`).'),
  },
  { $id: 'SiteResources' },
)
export type SiteResourcesAnswer = Static<typeof SiteResourcesAnswer>

/** How long the API waits for a node to read its sites' resources. */
export const resourcesTimeoutMs = 10_000

const megabytes = (bytes: number) => Math.round((bytes / (1024 * 1024)) * 10) / 10

/** A node's reading of one kind, in the API's unit, against the site's effective limit. */
function inApiUnits(kind: ResourceKind, use: ResourceUse, limit: EffectiveLimit) {
  const used = kind === 'memory' || kind === 'disk' ? megabytes(use.used) : Math.round(use.used * 10) / 10
  return {
    used: Math.max(0, used),
    limit: limit.value,
    source: limit.source,
    hits24h: Math.max(0, Math.floor(use.hits24h)),
    enforced: use.enforced,
    unit: units[kind],
  }
}

/** The API's answer of a node's reading of a site and the limits the site runs under. */
export function resourcesAnswer(reading: SiteResources, limits: EffectiveLimits): SiteResourcesAnswer {
  return {
    siteId: reading.siteId,
    at: reading.at,
    cpu: { ...inApiUnits('cpu', reading.cpu, limits[limitOfKind.cpu]), unit: 'percent' },
    memory: { ...inApiUnits('memory', reading.memory, limits[limitOfKind.memory]), unit: 'MB' },
    processes: {
      ...inApiUnits('processes', reading.processes, limits[limitOfKind.processes]),
      unit: 'processes',
    },
    disk: { ...inApiUnits('disk', reading.disk, limits[limitOfKind.disk]), unit: 'MB' },
  }
}

/** Whether a node's reading of one kind is one: finite amounts of at least 0 and a flag. */
function isUse(value: unknown): value is ResourceUse {
  if (typeof value !== 'object' || value === null) return false
  const use = value as Record<string, unknown>
  const amount = (item: unknown) =>
    typeof item === 'number' && Number.isFinite(item) && item >= 0 && item <= Number.MAX_SAFE_INTEGER
  return (
    amount(use.used) &&
    (use.limit === null || amount(use.limit)) &&
    amount(use.hits24h) &&
    typeof use.enforced === 'boolean'
  )
}

/** Whether a node's answer for one site is a reading of it, of every kind, at a time. */
function isReading(value: unknown): value is SiteResources {
  if (typeof value !== 'object' || value === null) return false
  const reading = value as Record<string, unknown>
  return (
    typeof reading.siteId === 'string' &&
    typeof reading.at === 'string' &&
    !Number.isNaN(Date.parse(reading.at)) &&
    resourceKinds.every((kind) => isUse(reading[kind]))
  )
}

/**
 * Asks `node` what `siteIds` use now (the node's `resources` operation, read only). A node's answer is not trusted
 * to be well formed: a reading that is not one is left out (the site's resources are then unreported), so a
 * broken or hostile agent gives neither a failed request nor an answer off the API's schema.
 */
export async function readResources(
  nodes: NodeDirectory,
  node: Node,
  siteIds: readonly string[],
  signal: AbortSignal,
): Promise<readonly SiteResources[]> {
  const answer = await nodes.send(node, nodeCommand('resources', { siteIds: [...siteIds] }), signal)
  if (!Array.isArray(answer)) throw new Error('The node answered its sites’ resources with no list')
  return answer.filter(isReading).map((reading) => ({ ...reading, at: new Date(reading.at).toISOString() }))
}
