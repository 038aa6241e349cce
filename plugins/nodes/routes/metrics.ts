// POST /nodes/{id}/metrics: a node reports per-site traffic with its own agent token, counted in usage.

import {
  defineRoute,
  FieldErrors,
  kernelProblems,
  type PluginContext,
  Problem,
  type ProblemRef,
  type RouteDefinition,
  type Static,
  type Trx,
  t,
} from '../../../core/index.ts'
import { type LocatedSite, siteLocators } from '../contract.ts'
import { recordDisk, type SiteDiskSample } from '../disk.ts'
import type { NodesTable } from '../migrations.ts'
import { nodesProblems } from '../problems.ts'
import { agentCredential, invalidAgentToken } from '../remote/agent-credential.ts'
import { recordTraffic } from '../traffic.ts'

/** How far back a sample may be dated: usage sums at most the last 7 days. */
export const sampleMaxAgeMs = 7 * 24 * 3_600_000
/** How far ahead of the panel's clock a sample may be dated (clock skew between node and panel). */
export const sampleMaxSkewMs = 5 * 60_000
/** Most samples in one report. */
export const maxSamplesPerReport = 1000
/** At most this many `errors[]` items, as the kernel's own validation: a hostile body must not make a huge answer. */
const maxErrorItems = 50

const _realm = 'Bearer realm="plinth-node"'

const TrafficSample = t.Object(
  {
    siteId: t.String({
      minLength: 1,
      maxLength: 64,
      description: 'The site, `site_…`, which must run on this node.',
    }),
    requests: t.Integer({ minimum: 0, maximum: 1e12, description: 'Requests served since the last sample.' }),
    bytes: t.Integer({ minimum: 0, maximum: 1e15, description: 'Bytes sent since the last sample.' }),
    at: t.Optional(
      t.String({
        format: 'date-time',
        // A bare date would pass `date-time` in Elysia's formats; a sample needs its time (and zone) spelt out.
        pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T',
        maxLength: 64,
        description: 'When the traffic happened; default now. At most 7 days ago, not in the future.',
      }),
    ),
  },
  { $id: 'TrafficSample' },
)

const MetricsBody = t.Object(
  {
    samples: t.Array(TrafficSample, {
      minItems: 0,
      maxItems: maxSamplesPerReport,
      description: `Traffic per site, up to ${maxSamplesPerReport} samples (at least 1 without \`disk\`); recorded all together or not at all.`,
    }),
    disk: t.Optional(
      t.Array(
        t.Object({
          siteId: t.String({ minLength: 1, maxLength: 64, description: 'A site on this node, `site_…`.' }),
          bytes: t.Integer({
            minimum: 0,
            maximum: 1e15,
            description: 'What its files take on the node’s disk.',
          }),
        }),
        {
          maxItems: 100_000,
          description:
            'What every site on the node takes on disk now: replaces the node’s last measurement (a site left out is no longer on it). Sites the panel does not place on this node are left out.',
        },
      ),
    ),
  },
  { $id: 'NodeMetricsReport' },
)

type Report = Static<typeof MetricsBody>

const MetricsReceipt = t.Object(
  { recorded: t.Integer({ minimum: 0, description: 'How many samples were recorded.' }) },
  { $id: 'NodeMetricsReceipt' },
)

/**
 * The time of a sample's `at` in ms, or null for a date the calendar does not have: the `date-time` format lets
 * `2026-02-30T10:00:00Z` through, and `Date.parse` would silently make it the 2nd of March.
 */
function sampleTime(text: string): number | null {
  const [, year, month, day] = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T/.exec(text) ?? []
  const ms = Date.parse(text)
  if (Number.isNaN(ms) || year === undefined) return null
  const daysInMonth = new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate()
  return Number(day) >= 1 && Number(day) <= daysInMonth ? ms : null
}

/** The node's metrics route. */
export function metricsRoutes(context: PluginContext): RouteDefinition[] {
  const locators = context.extensionPoint(siteLocators)

  const agent = agentCredential(context)

  /**
   * The node the request's agent token belongs to, which must be the node of the path; 401 otherwise, alike
   * whether the node exists or not (a malformed id included: this runs before the path is checked). The kernel
   * calls it before reading the body.
   */
  async function reportingNode(request: Request, nodeId: string): Promise<NodesTable> {
    const node = await agent.authenticate(request, {})
    if (node.id !== nodeId) throw invalidAgentToken()
    return node
  }

  /** Where each site is, asking every locator (the sites plugin's, and any other plugin's that owns sites). */
  async function locate(siteIds: readonly string[]): Promise<Map<string, LocatedSite>> {
    const found = new Map<string, LocatedSite>()
    for (const locator of locators.list()) {
      const missing = siteIds.filter((id) => !found.has(id))
      if (missing.length === 0) break
      for (const [id, site] of await locator.locate(missing)) if (!found.has(id)) found.set(id, site)
    }
    return found
  }

  /**
   * Each sample's time in ms (now when it gives none); 422 when one names a date the calendar does not have. A
   * report says something: traffic, or the disk measurement (which may come alone).
   */
  function sampleTimes(body: Report, now: number): (number | null)[] {
    if (body.samples.length === 0 && body.disk === undefined)
      throw new Problem(kernelProblems.validation_failed, {
        detail: 'The request body has 1 invalid field.',
        errors: [
          {
            location: 'body.samples',
            message: 'must have at least 1 item without `disk`',
            code: 'too_few_items',
          },
        ],
      })
    const times = body.samples.map((sample) => (sample.at === undefined ? now : sampleTime(sample.at)))
    const impossible = times.flatMap((at, index) =>
      at === null
        ? [
            {
              location: `body.samples.${index}.at`,
              message: 'must be a valid date-time',
              code: 'invalid_format',
            },
          ]
        : [],
    )
    if (impossible.length > 0)
      throw new Problem(kernelProblems.validation_failed, {
        detail: `The request body has ${impossible.length} invalid field${impossible.length === 1 ? '' : 's'}.`,
        errors: impossible.slice(0, maxErrorItems),
      })
    return times
  }

  /**
   * The customer of each sample's site, every sample checked first: too old, in the future, or of a site that is
   * not on this node (answered like an unknown one: a node learns nothing about other nodes' sites).
   */
  async function samplesOfThisNode(
    node: NodesTable,
    body: Report,
    times: readonly (number | null)[],
    now: number,
  ): Promise<string[]> {
    const refusals = new FieldErrors()
    let refused = 0
    const refuse = (ref: ProblemRef, location: string) => {
      if (refused++ < maxErrorItems) refusals.add(ref, location)
    }
    times.forEach((at, index) => {
      if (at === null) return
      if (at < now - sampleMaxAgeMs) refuse(nodesProblems.sample_too_old, `body.samples.${index}.at`)
      else if (at > now + sampleMaxSkewMs) refuse(nodesProblems.sample_in_future, `body.samples.${index}.at`)
    })
    const sites = await locate([...new Set(body.samples.map((sample) => sample.siteId))])
    const customers = body.samples.map((sample, index) => {
      const site = sites.get(sample.siteId)
      if (site?.nodeId !== node.id) refuse(nodesProblems.unknown_site, `body.samples.${index}.siteId`)
      return site?.customerId ?? ''
    })
    if (refused > 0) throw refusals.toProblem()
    return customers
  }

  /** The traffic samples, counted under their customers' usage scopes. */
  async function recordSamples(
    trx: Trx,
    body: Report,
    customers: readonly string[],
    times: readonly (number | null)[],
    now: number,
  ): Promise<void> {
    const scopes = new Map<string, readonly string[]>()
    for (const id of new Set(customers)) scopes.set(id, await context.usage.scopesOf(trx, id))
    const samples = body.samples.map(({ requests, bytes }, index) => ({
      scopes: scopes.get(customers[index] ?? '') ?? [],
      at: new Date(times[index] ?? now),
      requests,
      bytes,
    }))
    await recordTraffic(trx, samples)
  }

  /**
   * The node's disk measurement, replacing its last one. A site deleted meanwhile, or placed on another node, is
   * left out rather than refused: disk is state.
   */
  async function recordDiskOf(
    trx: Trx,
    node: NodesTable,
    disk: NonNullable<Report['disk']>,
    sites: ReadonlyMap<string, LocatedSite>,
    now: number,
  ): Promise<void> {
    const measured = [] as SiteDiskSample[]
    for (const entry of disk) {
      const site = sites.get(entry.siteId)
      if (site?.nodeId !== node.id) continue
      measured.push({
        siteId: entry.siteId,
        bytes: entry.bytes,
        scopes: await context.usage.scopesOf(trx, site.customerId),
      })
    }
    await recordDisk(trx, node.id, measured, new Date(now))
  }

  return [
    defineRoute({
      method: 'POST',
      path: '/nodes/:id/metrics',
      operationId: 'reportNodeMetrics',
      summary: 'Report traffic of the sites on a node (node agents)',
      description:
        'Called by a node, not by people: authenticated by the node’s own agent token (`Authorization: Bearer plinth_node_…`), valid for this node only. Records requests and bytes per site for `GET /usage`. All samples are checked first and recorded in one transaction: one refused sample records nothing. Not idempotent: send each sample once.',
      public: true,
      credential: {
        ...agent,
        authenticate: (request, params) => reportingNode(request, params.id ?? ''),
      },
      params: { id: 'nod' },
      // Traffic counters, not a change anyone audits: a node reports every few minutes.
      audited: false,
      body: MetricsBody,
      responses: { 200: { description: 'The samples were recorded.', schema: MetricsReceipt } },
      problems: [
        nodesProblems.invalid_agent_token,
        nodesProblems.node_disabled,
        nodesProblems.unknown_site,
        nodesProblems.sample_too_old,
        nodesProblems.sample_in_future,
      ],
      async handler({ principal: node, body }) {
        if (node.status === 'disabled') throw new Problem(nodesProblems.node_disabled)
        const now = Date.now()
        const times = sampleTimes(body, now)
        const customers = await samplesOfThisNode(node, body, times, now)
        // Located before the transaction: the locators read through the panel's own connection, which a
        // transaction on SQLite holds until it ends.
        const diskSites = body.disk
          ? await locate([...new Set(body.disk.map((entry) => entry.siteId))])
          : new Map<string, LocatedSite>()
        await context.transaction(async (trx) => {
          await recordSamples(trx, body, customers, times, now)
          if (body.disk) await recordDiskOf(trx, node, body.disk, diskSites, now)
        })
        return { recorded: body.samples.length }
      },
    }),
  ]
}
