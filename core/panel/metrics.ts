// The panel's Prometheus metrics: one prom-client registry per panel, the kernel's series (requests, rate-limit
// refusals, job runs, the queue and the outbox read from the store at scrape time), the registry plugins declare
// theirs on (`context.metrics`), and `/metrics`, guarded by a token or served to loopback callers only.

import { createHash, timingSafeEqual } from 'node:crypto'
import ipaddr from 'ipaddr.js'
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { OutboxTables } from '../events/outbox-tables.ts'
import type { JobTables } from '../jobs/job-tables.ts'
import type {
  CounterMetric,
  GaugeDefinition,
  GaugeMetric,
  HistogramDefinition,
  HistogramMetric,
  Logger,
  MetricDefinition,
  MetricLabels,
  PluginMetrics,
} from '../plugin/define-plugin.ts'
import { PluginResolutionError } from '../plugin/plugin-resolution-error.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'
import { defineProblems } from '../problem/problem-code.ts'
import type { Store } from '../store/store.ts'
import type { RequestRecord } from './router.ts'

/** The refusal of `/metrics` to a caller that is neither on this machine nor holding the metrics token. */
export const metricsProblems = defineProblems({
  metrics_forbidden: {
    status: 403,
    detail:
      'The metrics are served to callers on this machine only; set METRICS_TOKEN to scrape from elsewhere.',
    description:
      '`GET /metrics` without `METRICS_TOKEN` answers loopback callers only, and never a request that came through a proxy (one carrying `X-Forwarded-For`, `Forwarded` or `X-Real-IP`). See docs/operators.md.',
  },
})

/** Who may read `/metrics`, and what it shows besides the panel's own series. */
export interface MetricsOptions {
  /**
   * The bearer token `/metrics` requires of every caller (`METRICS_TOKEN`); compared in constant time. Without
   * one, `/metrics` answers loopback callers only.
   */
  readonly token?: string | null
  /**
   * Also the process's own series (CPU, memory, event loop lag, open files: prom-client's default metrics, under
   * their usual unprefixed names). Default false; the standard host turns them on.
   */
  readonly processMetrics?: boolean
}

/** Seconds buckets of request durations: most requests take a millisecond or two. */
const requestBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
/** Seconds buckets of job runs: from a quick change to a long provisioning. */
const jobBuckets = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900]
const defaultBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

const metricName = /^plinth_[a-z][a-z0-9]*(_[a-z0-9]+)*$/
const labelName = /^[a-z][a-z0-9_]*$/
/** Methods counted under their own name; anything else a client invents is `other`, so it cannot add series. */
const knownMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

/** How a job run ended, as counted: a retry is a run that failed with attempts left. */
export type JobRunOutcome = 'succeeded' | 'retried' | 'failed' | 'cancelled'

/** Which allowance refused a request (the rate limiter's key kinds). */
export type RateLimitKind = 'credential' | 'address' | 'login'

type Kind = 'counter' | 'gauge' | 'histogram'

/** A prom-client metric's label object from ours (prom-client wants string or number values, which ours are). */
const plain = <L extends string>(labels: MetricLabels<L> | undefined) =>
  (labels ?? {}) as Partial<Record<L, string | number>>

/** The panel's registry and the kernel's series. */
export function createPanelMetrics(options: { readonly log: Logger; readonly processMetrics?: boolean }) {
  const registry = new Registry()
  if (options.processMetrics) collectDefaultMetrics({ register: registry })
  const declared = new Map<string, { plugin: string; kind: Kind; labels: string; metric: unknown }>()
  const log = options.log.child({ component: 'metrics' })

  /** Checks a declaration; answers the metric `plugin` already declared under this name and shape, if any. */
  function check(plugin: string, kind: Kind, definition: MetricDefinition<string>): unknown {
    const { name } = definition
    if (!metricName.test(name))
      throw new PluginResolutionError(
        `"${plugin}" declares the metric "${name}": names are plinth_ then snake_case (plinth_notes_sent_total)`,
      )
    if ((kind === 'counter') !== name.endsWith('_total'))
      throw new PluginResolutionError(
        `"${plugin}" declares the ${kind} "${name}": counters, and only counters, end in _total`,
      )
    for (const label of definition.labelNames ?? []) {
      if (!labelName.test(label) || label === 'le' || label === 'quantile')
        throw new PluginResolutionError(`"${plugin}" declares the metric "${name}" with the label "${label}"`)
    }
    const existing = declared.get(name)
    if (!existing) return undefined
    const labels = [...(definition.labelNames ?? [])].join(',')
    if (existing.plugin === plugin && existing.kind === kind && existing.labels === labels)
      return existing.metric
    throw new PluginResolutionError(
      `The metric "${name}" is declared by both "${existing.plugin}" and "${plugin}"`,
    )
  }

  function remember(plugin: string, kind: Kind, definition: MetricDefinition<string>, metric: unknown): void {
    const labels = [...(definition.labelNames ?? [])].join(',')
    declared.set(definition.name, { plugin, kind, labels, metric })
  }

  /** The registry as `plugin` declares on it. */
  function forPlugin(plugin: string): PluginMetrics {
    return {
      counter<L extends string>(definition: MetricDefinition<L>): CounterMetric<L> {
        const existing = check(plugin, 'counter', definition)
        if (existing) return existing as CounterMetric<L>
        const counter = new Counter<L>({
          name: definition.name,
          help: definition.help,
          labelNames: definition.labelNames ?? [],
          registers: [registry],
        })
        const metric: CounterMetric<L> = { inc: (labels, by = 1) => counter.inc(plain(labels), by) }
        remember(plugin, 'counter', definition, metric)
        return metric
      },
      gauge<L extends string>(definition: GaugeDefinition<L>): GaugeMetric<L> {
        const existing = check(plugin, 'gauge', definition)
        if (existing) return existing as GaugeMetric<L>
        const read = definition.collect
        const gauge: Gauge<L> = new Gauge<L>({
          name: definition.name,
          help: definition.help,
          labelNames: definition.labelNames ?? [],
          registers: [registry],
          ...(read
            ? {
                async collect() {
                  try {
                    const value = await read()
                    gauge.reset()
                    if (typeof value === 'number') gauge.set(value)
                    else for (const sample of value) gauge.set(plain(sample.labels), sample.value)
                  } catch (error) {
                    // Unknown, not zero: an unlabelled gauge reads NaN, a labelled one has no series this scrape.
                    gauge.reset()
                    if ((definition.labelNames ?? []).length === 0) gauge.set(Number.NaN)
                    log.warn({ metric: definition.name, plugin, err: error }, 'reading a gauge failed')
                  }
                },
              }
            : {}),
        })
        const metric: GaugeMetric<L> = {
          set: (value, labels) => gauge.set(plain(labels), value),
          inc: (labels, by = 1) => gauge.inc(plain(labels), by),
          dec: (labels, by = 1) => gauge.dec(plain(labels), by),
        }
        remember(plugin, 'gauge', definition, metric)
        return metric
      },
      histogram<L extends string>(definition: HistogramDefinition<L>): HistogramMetric<L> {
        const existing = check(plugin, 'histogram', definition)
        if (existing) return existing as HistogramMetric<L>
        const histogram = new Histogram<L>({
          name: definition.name,
          help: definition.help,
          labelNames: definition.labelNames ?? [],
          buckets: [...(definition.buckets ?? defaultBuckets)],
          registers: [registry],
        })
        const metric: HistogramMetric<L> = {
          observe: (value, labels) => histogram.observe(plain(labels), value),
        }
        remember(plugin, 'histogram', definition, metric)
        return metric
      },
    }
  }

  const kernel = forPlugin('kernel')
  const requests = kernel.histogram({
    name: 'plinth_http_request_duration_seconds',
    help: 'Requests answered, by method, route template and status, with how long they took (its _count counts them).',
    labelNames: ['method', 'route', 'status'],
    buckets: requestBuckets,
  })
  const refusals = kernel.counter({
    name: 'plinth_rate_limit_refusals_total',
    help: 'Requests refused with 429 rate_limited, by the allowance they went over: credential, address or login.',
    labelNames: ['limit'],
  })
  const runs = kernel.counter({
    name: 'plinth_job_runs_total',
    help: 'Job runs this process finished, by kind and outcome: succeeded, retried (failed, attempts left), failed, cancelled.',
    labelNames: ['kind', 'outcome'],
  })
  const runTimes = kernel.histogram({
    name: 'plinth_job_run_duration_seconds',
    help: 'How long job runs took in this process, by kind.',
    labelNames: ['kind'],
    buckets: jobBuckets,
  })

  // Every limit's series exists from the start, at 0: a rate over them never meets an absent series.
  for (const limit of ['credential', 'address', 'login'] as const) refusals.inc({ limit }, 0)

  return {
    registry,
    forPlugin,
    /** Makes every kind's run series exist, at 0, once the kinds are known. */
    knowJobKinds(kinds: Iterable<string>): void {
      for (const kind of kinds)
        for (const outcome of ['succeeded', 'retried', 'failed', 'cancelled'] as const)
          runs.inc({ kind, outcome }, 0)
    },
    /** One finished request (the router calls it for every request). */
    observeRequest(record: RequestRecord): void {
      requests.observe(record.durationMs / 1000, {
        method: knownMethods.has(record.method) ? record.method : 'other',
        route: record.route ?? 'unmatched',
        status: record.status,
      })
    },
    rateLimited(limit: RateLimitKind): void {
      refusals.inc({ limit })
    },
    jobRan(kind: string, outcome: JobRunOutcome, seconds: number): void {
      runs.inc({ kind, outcome })
      runTimes.observe(seconds, { kind })
    },
  }
}

/** The panel's metrics. */
export type PanelMetrics = ReturnType<typeof createPanelMetrics>

/** Seconds since an ISO time, or 0 when there is none. */
const ageOf = (iso: string | null | undefined, now: number) =>
  iso ? Math.max(0, (now - Date.parse(iso)) / 1000) : 0

/**
 * The series read from the store at each scrape: the job queue by kind (queued and running; finished jobs are the
 * counters, since counting every job ever run would scan the whole table), how long the oldest due job has
 * waited, and the outbox's backlog and lag. With several instances on one store each reports the same values:
 * aggregate them with `max`, not `sum`.
 */
export function registerStoreGauges(
  metrics: PanelMetrics,
  store: Store,
  jobKinds: () => Iterable<string>,
  version: string,
): void {
  const kernel = metrics.forPlugin('kernel')
  metrics.knowJobKinds(jobKinds())
  const jobs = () => store.db.withTables<JobTables>()
  const outbox = () => store.db.withTables<OutboxTables>()
  kernel.gauge({
    name: 'plinth_build_info',
    help: 'Always 1: the panel version, as a label.',
    labelNames: ['version'],
    collect: async () => [{ labels: { version }, value: 1 }],
  })
  kernel.gauge({
    name: 'plinth_jobs',
    help: 'Jobs now queued or running, by kind and status (read from the store at each scrape).',
    labelNames: ['kind', 'status'],
    async collect() {
      const rows = await jobs()
        .selectFrom('jobs')
        .select(['kind', 'status', (eb) => eb.fn.countAll().as('count')])
        .where('status', 'in', ['queued', 'running'])
        .groupBy(['kind', 'status'])
        .execute()
      // Every known kind in both states, zero when idle, so an alert on a series never meets an absent one.
      const counts = new Map<string, number>()
      for (const kind of jobKinds())
        for (const status of ['queued', 'running']) counts.set(`${kind}\n${status}`, 0)
      for (const row of rows) counts.set(`${row.kind}\n${row.status}`, Number(row.count))
      return [...counts].map(([key, value]) => {
        const [kind = '', status = ''] = key.split('\n')
        return { labels: { kind, status }, value }
      })
    },
  })
  kernel.gauge({
    name: 'plinth_jobs_oldest_queued_age_seconds',
    help: 'How long the oldest job due to run has waited for a worker, in seconds; 0 when none waits.',
    async collect() {
      const now = new Date()
      const row = await jobs()
        .selectFrom('jobs')
        .select((eb) => eb.fn.min('run_after').as('oldest'))
        .where('status', '=', 'queued')
        .where('run_after', '<=', now.toISOString())
        .executeTakeFirst()
      return ageOf(row?.oldest as string | null | undefined, now.getTime())
    },
  })
  kernel.gauge({
    name: 'plinth_outbox_pending_events',
    help: 'Events written but not yet handed to their consumers (webhooks, ...).',
    async collect() {
      const row = await outbox()
        .selectFrom('event_outbox')
        .select((eb) => eb.fn.countAll().as('count'))
        .where('dispatched_at', 'is', null)
        .executeTakeFirst()
      return Number(row?.count ?? 0)
    },
  })
  kernel.gauge({
    name: 'plinth_outbox_lag_seconds',
    help: 'Age of the oldest event not yet handed to its consumers, in seconds; 0 when none waits.',
    async collect() {
      const now = Date.now()
      const row = await outbox()
        .selectFrom('event_outbox')
        .select('occurred_at')
        .where('dispatched_at', 'is', null)
        .orderBy('dispatched_at')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst()
      return ageOf(row?.occurred_at, now)
    },
  })
}

/** SHA-256 of a token: both sides hashed to one length, so the comparison takes the same time whatever was sent. */
const digest = (text: string) => createHash('sha256').update(text).digest()

/** Whether `address` is this machine's (127.0.0.0/8, ::1, or either mapped). */
function isLoopback(address: string | null): boolean {
  if (address === null || !ipaddr.isValid(address)) return false
  return ipaddr.process(address).range() === 'loopback'
}

/** Headers a proxy adds: a request carrying one came through a proxy, whatever its socket says. */
const forwardingHeaders = ['x-forwarded-for', 'forwarded', 'x-real-ip']

/**
 * Answers `GET /metrics`: with a token, only to `Authorization: Bearer <token>` (401 otherwise); without one, only to
 * a loopback caller that did not come through a proxy (403 otherwise). Never rate limited.
 */
export function metricsEndpoint(metrics: PanelMetrics, token: string | null) {
  const expected = token === null ? null : digest(token)
  return async (request: Request, info: { requestId: string; address: string | null }): Promise<Response> => {
    if (expected) {
      const header = request.headers.get('authorization')
      const given = header === null ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header)?.[1]
      if (given === null || given === undefined || !timingSafeEqual(digest(given), expected)) {
        const ref = header === null ? kernelProblems.unauthenticated : kernelProblems.invalid_token
        return new Problem(ref, {
          detail:
            header === null
              ? 'The metrics need the metrics token: send Authorization: Bearer <METRICS_TOKEN>.'
              : 'This is not the metrics token.',
          headers: { 'www-authenticate': 'Bearer realm="plinth-metrics"' },
        }).toResponse(info.requestId)
      }
    } else if (!isLoopback(info.address) || forwardingHeaders.some((name) => request.headers.has(name))) {
      return new Problem(metricsProblems.metrics_forbidden).toResponse(info.requestId)
    }
    return new Response(await metrics.registry.metrics(), {
      headers: { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' },
    })
  }
}
