// The kernel's observability: `/metrics` (who may read it, the Prometheus text, the kernel's series), the metrics and
// the logger a plugin gets on its context, and the log lines of failures with their ids.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Type as t } from '@sinclair/typebox'
import { issueApiToken } from '../identity/api-tokens.ts'
import { createUser } from '../identity/users.ts'
import { JobFailure } from '../jobs/job-definition.ts'
import { definePlugin, type PluginDefinition } from '../plugin/define-plugin.ts'
import { defineRoute, Reply } from '../plugin/route.ts'
import { openSqliteStore } from '../store/sqlite-store.ts'
import { waitFor } from '../testing/async.ts'
import { createPanel, type Panel, type PanelOptions } from './create-panel.ts'
import { jsonLinesLogger } from './logger.ts'

type Line = Record<string, unknown>

/** A panel of `plugins` whose every log line (debug and up) is kept, parsed, in `lines`. */
async function observedPanel(plugins: readonly PluginDefinition[], options: Partial<PanelOptions> = {}) {
  const lines: Line[] = []
  const panel = await createPanel({
    store: openSqliteStore({ path: ':memory:' }),
    plugins,
    secret: 'metrics-test-secret-metrics-test-secret',
    logger: jsonLinesLogger({ level: 'debug', write: (line) => lines.push(JSON.parse(line) as Line) }),
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 20, leaseMs: 2_000 },
    events: { pollIntervalMs: 10 },
    ...options,
  })
  const user = await createUser(panel.store.db, {
    email: 'staff@example.test',
    password: 'correct horse battery',
    staffRole: 'platform',
  })
  const issued = await panel.store.transaction((trx) =>
    issueApiToken(
      trx,
      user,
      { name: 'test', scopes: ['*'], customerId: null, expiresAt: null },
      { defaultDays: 90, maxDays: 365 },
    ),
  )
  return { panel, lines, token: issued.token }
}

/** GET `path` as a client at `address`, with `headers`. */
function get(panel: Panel, path: string, address: string | null, headers: Record<string, string> = {}) {
  return panel.handle(new Request(`http://localhost${path}`, { headers }), { address })
}

/** The value of the sample `series` (`name{labels}` exactly as written) in a Prometheus text, or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

/** A plugin of widgets: metrics of its own, a job that fails as asked, and a route that starts it. */
const widgetsPlugin = () =>
  definePlugin({
    name: 'widgets',
    version: '1.0.0',
    description: 'Widgets, for the observability tests.',
    scopes: [{ name: 'widget:build', description: 'Build widgets', staff: true }],
    setup(context) {
      context.metrics.gauge({
        name: 'plinth_widgets_waiting',
        help: 'Widgets waiting, read at each scrape.',
        labelNames: ['colour'],
        collect: async () => [
          { labels: { colour: 'red' }, value: 3 },
          { labels: { colour: 'blue' }, value: 1 },
        ],
      })
    },
    jobs: () => [
      {
        kind: 'widget.build',
        description: 'Builds a widget, failing as its input says.',
        maxAttempts: 2,
        async run(job) {
          if (job.input.fail === 'for good') throw new JobFailure('The widget broke.', 'widget_broken')
          if (job.input.fail === 'always') throw new Error(`transient fault ${job.attempt}`)
          return {}
        },
      },
    ],
    routes: (context) => {
      const built = context.metrics.counter({
        name: 'plinth_widgets_built_total',
        help: 'Widgets asked for, by colour.',
        labelNames: ['colour'],
      })
      const sizes = context.metrics.histogram({
        name: 'plinth_widget_size_bytes',
        help: 'Sizes of widgets asked for.',
        buckets: [10, 100, 1000],
      })
      return [
        defineRoute({
          method: 'POST',
          path: '/widgets',
          operationId: 'buildWidget',
          summary: 'Build a widget',
          scope: 'widget:build',
          audited: false,
          body: t.Object({ colour: t.String(), size: t.Integer(), fail: t.Optional(t.String()) }),
          responses: { 202: { description: 'The job building it.' } },
          async handler({ body, enqueueJob }) {
            built.inc({ colour: body.colour })
            sizes.observe(body.size)
            context.log.info({ colour: body.colour }, 'widget asked for')
            const jobId = await context.transaction((trx) =>
              enqueueJob(trx, {
                kind: 'widget.build',
                customerId: null,
                subject: { type: 'widget', id: 'wdg_1' },
                input: body.fail ? { fail: body.fail } : {},
              }),
            )
            return Reply.accepted({ jobId })
          },
        }),
        defineRoute({
          method: 'GET',
          path: '/widgets/broken',
          operationId: 'breakWidget',
          summary: 'Fail unexpectedly',
          scope: 'widget:build',
          responses: { 200: { description: 'Never answered.' } },
          handler: () => {
            throw new Error('an internal fault naming /srv/plinth/secret-path')
          },
        }),
      ]
    },
  })

describe('/metrics without a token', () => {
  let panel: Panel
  beforeAll(async () => {
    ;({ panel } = await observedPanel([], { rateLimits: { perMinute: 2 } }))
  })
  afterAll(() => panel.close())

  test('answers a loopback caller (IPv4, IPv6, IPv4-mapped) with the Prometheus text format', async () => {
    for (const address of ['127.0.0.1', '127.0.0.2', '::1', '::ffff:127.0.0.1']) {
      const response = await get(panel, '/metrics', address)
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
      expect(response.headers.get('cache-control')).toBe('no-store')
      expect(await response.text()).toContain('# TYPE plinth_http_request_duration_seconds histogram')
    }
  })

  test('refuses any other caller, an unknown address, and a loopback one that came through a proxy: 403', async () => {
    const refusals = [
      await get(panel, '/metrics', '203.0.113.9'),
      await get(panel, '/metrics', '10.0.0.5'),
      await get(panel, '/metrics', null),
      await get(panel, '/metrics', '127.0.0.1', { 'x-forwarded-for': '198.51.100.4' }),
      await get(panel, '/metrics', '127.0.0.1', { forwarded: 'for=198.51.100.4' }),
      await get(panel, '/metrics', '::1', { 'x-real-ip': '198.51.100.4' }),
    ]
    for (const response of refusals) {
      expect(response.status).toBe(403)
      expect(response.headers.get('content-type')).toBe('application/problem+json')
      const body = (await response.json()) as Record<string, unknown>
      expect(body).toMatchObject({ status: 403, code: 'metrics_forbidden' })
      expect(JSON.stringify(body)).not.toContain('plinth_')
    }
  })

  test('is never rate limited, and is not in the API document', async () => {
    for (let i = 0; i < 10; i++) expect((await get(panel, '/metrics', '127.0.0.1')).status).toBe(200)
    expect(Object.keys(panel.document.paths as object)).not.toContain('/metrics')
  })

  test('a method other than GET is 405 with Allow: GET', async () => {
    const response = await panel.handle(new Request('http://localhost/metrics', { method: 'POST' }), {
      address: '127.0.0.1',
    })
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('GET')
  })
})

describe('/metrics with a token', () => {
  let panel: Panel
  beforeAll(async () => {
    ;({ panel } = await observedPanel([], { metrics: { token: 'metrics-token-0123456789abcdef' } }))
  })
  afterAll(() => panel.close())

  test('needs the token from every caller, loopback too: 401 without it, 401 with another', async () => {
    const missing = await get(panel, '/metrics', '127.0.0.1')
    expect(missing.status).toBe(401)
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="plinth-metrics"')
    expect(await missing.json()).toMatchObject({ status: 401, code: 'unauthenticated' })
    for (const header of [
      'Bearer metrics-token-0123456789abcdeF',
      'Bearer metrics-token-0123456789abcdef-and-more',
      'Bearer m',
      'Basic bWV0cmljczp0b2tlbg==',
      'Bearer',
    ]) {
      const wrong = await get(panel, '/metrics', '127.0.0.1', { authorization: header })
      expect(wrong.status).toBe(401)
      expect(await wrong.json()).toMatchObject({ status: 401, code: 'invalid_token' })
    }
  })

  test('answers the token from anywhere, through a proxy too', async () => {
    const headers = {
      authorization: 'Bearer metrics-token-0123456789abcdef',
      'x-forwarded-for': '198.51.100.4',
    }
    const response = await get(panel, '/metrics', '203.0.113.9', headers)
    expect(response.status).toBe(200)
    expect(await response.text()).toContain('plinth_build_info{version="0.2.0"} 1')
  })
})

test('metrics: false serves no /metrics (the embedder serves its own)', async () => {
  const { panel } = await observedPanel([], { metrics: false })
  try {
    expect((await get(panel, '/metrics', '127.0.0.1')).status).toBe(404)
  } finally {
    await panel.close()
  }
})

describe('the series after some requests, a failed job and a plugin’s own metrics', () => {
  let panel: Panel
  let token: string
  let lines: Line[]
  let text: string
  let jobIds: { failed: string; retried: string; succeeded: string }

  const build = async (body: Record<string, unknown>) => {
    const response = await panel.handle(
      new Request('http://localhost/api/v1/widgets', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
      { address: '203.0.113.7' },
    )
    expect(response.status).toBe(202)
    return ((await response.json()) as { jobId: string }).jobId
  }
  const jobStatus = async (id: string) => {
    const response = await get(panel, `/api/v1/jobs/${id}`, '127.0.0.1', { authorization: `Bearer ${token}` })
    return ((await response.json()) as { status: string }).status
  }

  beforeAll(async () => {
    ;({ panel, token, lines } = await observedPanel([widgetsPlugin()], {
      rateLimits: { perMinute: 1_000, loginPerMinute: 1 },
    }))
    panel.start()
    jobIds = {
      succeeded: await build({ colour: 'red', size: 50 }),
      failed: await build({ colour: 'red', size: 500, fail: 'for good' }),
      retried: await build({ colour: 'blue', size: 5, fail: 'always' }),
    }
    for (const id of Object.values(jobIds))
      await waitFor(`job ${id} to end`, async () => ['succeeded', 'failed'].includes(await jobStatus(id)))
    expect(await jobStatus(jobIds.retried)).toBe('failed')
    await get(panel, '/api/v1/nothing-here', '127.0.0.1')
    await get(panel, '/healthz', '127.0.0.1')
    expect(
      (await get(panel, '/api/v1/widgets/broken', '127.0.0.1', { authorization: `Bearer ${token}` })).status,
    ).toBe(500)
    // Login's own allowance is one a minute: the second is refused.
    for (let i = 0; i < 2; i++)
      await panel.handle(
        new Request('http://localhost/api/v1/auth/login', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'nobody@example.test', password: 'not the password at all' }),
        }),
        { address: '203.0.113.8' },
      )
    text = await (await get(panel, '/metrics', '127.0.0.1')).text()
  })
  afterAll(() => panel.close())

  test('requests by method, route template and status, with their durations', () => {
    const created = 'method="POST",route="/api/v1/widgets",status="202"'
    expect(sample(text, `plinth_http_request_duration_seconds_count{${created}}`)).toBe(3)
    expect(sample(text, `plinth_http_request_duration_seconds_bucket{le="+Inf",${created}}`)).toBe(3)
    expect(sample(text, `plinth_http_request_duration_seconds_sum{${created}}`)).toBeGreaterThan(0)
    expect(
      sample(
        text,
        'plinth_http_request_duration_seconds_count{method="GET",route="/api/v1/jobs/:id",status="200"}',
      ),
    ).toBeGreaterThanOrEqual(3)
    expect(
      sample(text, 'plinth_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}'),
    ).toBe(1)
    expect(
      sample(text, 'plinth_http_request_duration_seconds_count{method="GET",route="/healthz",status="200"}'),
    ).toBe(1)
    expect(
      sample(
        text,
        'plinth_http_request_duration_seconds_count{method="GET",route="/api/v1/widgets/broken",status="500"}',
      ),
    ).toBe(1)
    // The path as sent never becomes a label: ids would make a series each.
    expect(text).not.toContain('nothing-here')
  })

  test('rate-limit refusals by allowance', () => {
    expect(sample(text, 'plinth_rate_limit_refusals_total{limit="login"}')).toBe(1)
    expect(sample(text, 'plinth_rate_limit_refusals_total{limit="credential"}')).toBe(0)
    expect(sample(text, 'plinth_rate_limit_refusals_total{limit="address"}')).toBe(0)
  })

  test('job runs by kind and outcome, their durations, and the queue read from the store', () => {
    const runs = (outcome: string) =>
      sample(text, `plinth_job_runs_total{kind="widget.build",outcome="${outcome}"}`)
    expect(runs('succeeded')).toBe(1)
    // The JobFailure fails at once; the transient fault is retried once (maxAttempts 2), then fails.
    expect(runs('failed')).toBe(2)
    expect(runs('retried')).toBe(1)
    expect(runs('cancelled')).toBe(0)
    expect(sample(text, 'plinth_job_run_duration_seconds_count{kind="widget.build"}')).toBe(4)
    expect(sample(text, 'plinth_jobs{kind="widget.build",status="queued"}')).toBe(0)
    expect(sample(text, 'plinth_jobs{kind="widget.build",status="running"}')).toBe(0)
    expect(sample(text, 'plinth_jobs_oldest_queued_age_seconds')).toBe(0)
    expect(sample(text, 'plinth_outbox_pending_events')).toBeGreaterThanOrEqual(0)
    expect(text).toContain('# TYPE plinth_outbox_lag_seconds gauge')
  })

  test('a plugin’s own counter, histogram and scrape-time gauge', () => {
    expect(sample(text, 'plinth_widgets_built_total{colour="red"}')).toBe(2)
    expect(sample(text, 'plinth_widgets_built_total{colour="blue"}')).toBe(1)
    expect(sample(text, 'plinth_widget_size_bytes_bucket{le="10"}')).toBe(1)
    expect(sample(text, 'plinth_widget_size_bytes_bucket{le="100"}')).toBe(2)
    expect(sample(text, 'plinth_widget_size_bytes_count')).toBe(3)
    expect(sample(text, 'plinth_widgets_waiting{colour="red"}')).toBe(3)
    expect(sample(text, 'plinth_widgets_waiting{colour="blue"}')).toBe(1)
  })

  test('failed runs are logged with the job’s ids, kind and attempt; a retry says when', () => {
    const failedForGood = lines.find((line) => line.jobId === jobIds.failed)
    expect(failedForGood).toMatchObject({
      level: 'error',
      msg: 'job failed',
      component: 'jobs',
      kind: 'widget.build',
      attempt: 1,
      maxAttempts: 2,
      code: 'widget_broken',
      error: 'The widget broke.',
      requestId: expect.stringMatching(/^req_/),
    })
    // A plugin's own refusal says all there is: no stack.
    expect(failedForGood?.err).toBeUndefined()
    const retried = lines.filter((line) => line.jobId === jobIds.retried)
    expect(retried.map((line) => [line.level, line.msg, line.attempt])).toEqual([
      ['warn', 'job run failed; retrying', 1],
      ['error', 'job failed', 2],
    ])
    expect(retried[0]).toMatchObject({ code: 'job_error', retryAt: expect.any(String) })
    expect((retried[1]?.err as { stack?: string } | undefined)?.stack).toContain('transient fault 2')
  })

  test('an unexpected failure is logged with the request id the client got, and the client sees nothing of it', () => {
    const failure = lines.find((line) => line.msg === 'request failed')
    expect(failure).toMatchObject({
      level: 'error',
      requestId: expect.stringMatching(/^req_/),
      plugin: 'widgets',
      operationId: 'breakWidget',
      err: { type: 'Error', message: 'an internal fault naming /srv/plinth/secret-path' },
    })
  })

  test('a plugin’s lines carry its name', () => {
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'info', plugin: 'widgets', colour: 'red', msg: 'widget asked for' }),
    )
  })
})

describe('declaring metrics', () => {
  const declaring = (name: string, declare: PluginDefinition['setup']) =>
    definePlugin({ name, version: '1.0.0', description: 'Declares metrics.', setup: declare })

  test('names must be plinth_ and snake_case; counters, and only counters, end in _total', async () => {
    const refusals: [PluginDefinition['setup'], RegExp][] = [
      [(c) => void c.metrics.counter({ name: 'widgets_total', help: 'x' }), /plinth_ then snake_case/],
      [(c) => void c.metrics.counter({ name: 'plinth_Widgets_total', help: 'x' }), /plinth_ then snake_case/],
      [(c) => void c.metrics.counter({ name: 'plinth_widgets', help: 'x' }), /counters, and only counters/],
      [
        (c) => void c.metrics.gauge({ name: 'plinth_widgets_total', help: 'x' }),
        /counters, and only counters/,
      ],
      [
        (c) => void c.metrics.histogram({ name: 'plinth_widget_seconds', help: 'x', labelNames: ['le'] }),
        /the label "le"/,
      ],
    ]
    for (const [setup, message] of refusals) {
      await expect(observedPanel([declaring('widgets', setup)])).rejects.toThrow(message)
    }
  })

  test('a name declared by two plugins fails the start-up naming both; the kernel’s names are taken', async () => {
    const counter = (c: Parameters<NonNullable<PluginDefinition['setup']>>[0]) =>
      void c.metrics.counter({ name: 'plinth_shared_total', help: 'x' })
    await expect(observedPanel([declaring('first', counter), declaring('second', counter)])).rejects.toThrow(
      'The metric "plinth_shared_total" is declared by both "first" and "second"',
    )
    await expect(
      observedPanel([
        declaring('greedy', (c) => void c.metrics.counter({ name: 'plinth_job_runs_total', help: 'x' })),
      ]),
    ).rejects.toThrow('The metric "plinth_job_runs_total" is declared by both "kernel" and "greedy"')
  })

  test('the same plugin declaring the same metric again gets the one it has', async () => {
    const { panel } = await observedPanel([
      declaring('twice', (c) => {
        const first = c.metrics.counter({ name: 'plinth_twice_total', help: 'x', labelNames: ['a'] })
        const again = c.metrics.counter({ name: 'plinth_twice_total', help: 'x', labelNames: ['a'] })
        first.inc({ a: 'x' })
        again.inc({ a: 'x' }, 2)
      }),
    ])
    try {
      expect(
        sample(await (await get(panel, '/metrics', '127.0.0.1')).text(), 'plinth_twice_total{a="x"}'),
      ).toBe(3)
    } finally {
      await panel.close()
    }
  })

  test('a gauge whose reading fails reads NaN (no series when labelled) and is logged; the scrape answers', async () => {
    const { panel, lines } = await observedPanel([
      declaring('flaky', (c) => {
        const away = async (): Promise<number> => {
          throw new Error('the store is away')
        }
        c.metrics.gauge({ name: 'plinth_flaky_things', help: 'x', collect: away })
        c.metrics.gauge({ name: 'plinth_flaky_kinds', help: 'x', labelNames: ['kind'], collect: away })
      }),
    ])
    try {
      const response = await get(panel, '/metrics', '127.0.0.1')
      expect(response.status).toBe(200)
      const text = await response.text()
      expect(sample(text, 'plinth_flaky_things')).toBeNaN()
      expect(text).not.toContain('plinth_flaky_kinds{')
      expect(lines).toContainEqual(
        expect.objectContaining({ level: 'warn', metric: 'plinth_flaky_things', plugin: 'flaky' }),
      )
    } finally {
      await panel.close()
    }
  })
})
