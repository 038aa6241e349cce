// The cron jobs API on both stores, with no node's work (the scheduler does not look here): every refusal of a
// schedule and a command at its field with its code, the per-site limit, WP-Cron kept to WordPress sites, changes
// audited, another customer's token 404, scopes (`cron:read` reads only, the billing role nothing), the schedule
// preview, and a deleted site taking its jobs and runs along. Runs for real are cron.e2e.test.ts's (node side).

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { definePlugin, newId } from '../../core/index.ts'
import {
  createTestPanel,
  createTestUser,
  expectFieldProblem,
  expectProblem,
  type TestPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import { type NodeDriver, nodeDrivers } from '../nodes/contract.ts'
import { siteTypes } from '../sites/contract.ts'
import type { CronJob } from './contract.ts'
import { cronPlugin } from './index.ts'
import type { CronJobsTable } from './migrations.ts'
import { cronTables } from './repository.ts'
import { newRunRow } from './scheduler.ts'

let tp: TestPanel
let token: string
let customerId: string
let siteId: string

const call = (method: string, path: string, body?: unknown, as = token) =>
  tp.request(method, `/api/v1${path}`, { token: as, ...(body === undefined ? {} : { body }) })
async function json<T>(response: Response, status: number): Promise<T> {
  const text = await response.text()
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`)
  return (text ? JSON.parse(text) : null) as T
}

async function activeSite(customer: string, type = 'wordpress'): Promise<string> {
  const name = `cron-${crypto.randomUUID().slice(0, 8)}`
  const { id } = await json<{ id: string }>(
    await call('POST', '/sites', { customerId: customer, name, type, domain: `${name}.cron.test` }),
    201,
  )
  await waitFor(`site ${id} to be active`, async () => {
    const site = await json<{ status: string }>(await call('GET', `/sites/${id}`), 200)
    if (site.status === 'active') return true
    await Bun.sleep(20)
    return null
  })
  return id
}

/** Sites that are not WordPress, for the tests. */
const plainSites = definePlugin({
  name: 'plain-sites',
  version: '1.0.0',
  description: 'Plain sites, for the tests.',
  requires: ['sites'],
  setup(context) {
    context.extensionPoint(siteTypes).add({ name: 'plain-test', description: 'Plain files.' })
  },
})

/** A node driver whose sites are there at once and whose service calls never reach the node. */
const silentDriver: NodeDriver = {
  name: 'silent',
  description: 'A node whose agent never answers service calls.',
  send: async (_node, command) => {
    if (command.operation === 'call') throw new Error('the agent did not answer')
    return undefined as never
  },
}
const silentNodes = definePlugin({
  name: 'silent-nodes',
  version: '1.0.0',
  description: 'The silent node driver.',
  requires: ['nodes'],
  setup(context) {
    context.extensionPoint(nodeDrivers).add(silentDriver)
  },
})

beforeAll(async () => {
  tp = await createTestPanel({
    // The scheduler is off: nothing runs on the test node.
    plugins: [cronPlugin({ tickIntervalMs: 0, maxJobsPerSite: 3 }), plainSites, silentNodes],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
  })
  tp.panel.start()
  token = await tp.token()
  customerId = (await json<{ id: string }>(await call('POST', '/customers', { name: 'Cron' }), 201)).id
  siteId = await activeSite(customerId)
})
afterAll(() => tp.panel.close())

describe('a site’s cron jobs', () => {
  test('a job is created, read, listed, changed and deleted; each change audited', async () => {
    const created = await json<CronJob>(
      await call('POST', `/sites/${siteId}/cron-jobs`, {
        schedule: ' 30 2 * * mon-fri ',
        command: 'php artisan schedule:run',
      }),
      201,
    )
    expect(created).toMatchObject({
      siteId,
      customerId,
      kind: 'command',
      schedule: '30 2 * * mon-fri',
      enabled: true,
      timeoutSeconds: 300,
      lastRunAt: null,
      lastStatus: null,
    })
    const next = new Date(created.nextRunAt as string)
    expect([next.getUTCHours(), next.getUTCMinutes()]).toEqual([2, 30])
    expect([1, 2, 3, 4, 5]).toContain(next.getUTCDay())
    expect(await json(await call('GET', `/sites/${siteId}/cron-jobs/${created.id}`), 200)).toEqual(created)
    const list = await json<{ items: CronJob[] }>(await call('GET', `/sites/${siteId}/cron-jobs`), 200)
    expect(list.items.map((job) => job.id)).toEqual([created.id])
    const disabled = await json<CronJob>(
      await call('PATCH', `/sites/${siteId}/cron-jobs/${created.id}`, { enabled: false, timeoutSeconds: 60 }),
      200,
    )
    expect(disabled).toMatchObject({ enabled: false, nextRunAt: null, timeoutSeconds: 60 })
    const enabled = await json<CronJob>(
      await call('PATCH', `/sites/${siteId}/cron-jobs/${created.id}`, { enabled: true, schedule: '@hourly' }),
      200,
    )
    expect(new Date(enabled.nextRunAt as string).getUTCMinutes()).toBe(0)
    await json(await call('DELETE', `/sites/${siteId}/cron-jobs/${created.id}`), 204)
    await json(await call('GET', `/sites/${siteId}/cron-jobs/${created.id}`), 404)
    const audit = await json<{ items: { action: string; details: Record<string, unknown> }[] }>(
      await call('GET', `/audit?subject=${created.id}`),
      200,
    )
    expect(audit.items.map((entry) => entry.action).sort()).toEqual([
      'cron_job.create',
      'cron_job.delete',
      'cron_job.update',
      'cron_job.update',
    ])
    const update = audit.items.find(
      (entry) => entry.action === 'cron_job.update' && 'schedule' in entry.details,
    )
    expect(update?.details.schedule).toEqual({ from: '30 2 * * mon-fri', to: '@hourly' })
  })

  test('bad schedules are refused at body.schedule with invalid_cron_schedule, each with its reason', async () => {
    for (const schedule of [
      '* * * *',
      '60 * * * *',
      '* 24 * * *',
      '*/0 * * * *',
      '5-1 * * * *',
      '* * * foo *',
      '@reboot',
      '0 0 30 feb *',
      '* * * * * *',
      '* * * * *; rm -rf /',
      '* * * * *\n* * * * *',
    ]) {
      const refused = await call('POST', `/sites/${siteId}/cron-jobs`, { schedule, command: 'true' })
      await expectFieldProblem(refused, 422, 'invalid_cron_schedule', 'body.schedule')
    }
    const many = await call('POST', `/sites/${siteId}/cron-jobs`, { schedule: 'nope', command: 'a\nb' })
    const body = (await many.json()) as { errors: { location: string; code: string; message: string }[] }
    expect(body.errors.map((error) => [error.location, error.code])).toEqual([
      ['body.schedule', 'invalid_cron_schedule'],
      ['body.command', 'invalid_cron_command'],
    ])
    expect(body.errors[0]?.message).toContain('five fields')
  })

  test('commands: one line, no NUL or control characters, bounded; required for a command job', async () => {
    for (const command of ['echo a\nrm -rf ~', 'echo a\rb', 'echo \u0000', '   ', 'x'.repeat(4097)]) {
      const refused = await call('POST', `/sites/${siteId}/cron-jobs`, { schedule: '@daily', command })
      expect(refused.status).toBe(422)
      const body = (await refused.json()) as { errors: { location: string; code: string }[] }
      expect(body.errors[0]?.location).toBe('body.command')
    }
    await expectFieldProblem(
      await call('POST', `/sites/${siteId}/cron-jobs`, { schedule: '@daily' }),
      422,
      'cron_command_required',
      'body.command',
    )
    // Quotes, `$`, `;` and pipes are the shell's business: the command runs as the site's user, in its limits.
    const shell = await json<CronJob>(
      await call('POST', `/sites/${siteId}/cron-jobs`, {
        schedule: '@daily',
        command: `echo "$HOME"; ls | wc -l\t# 'ok'`,
      }),
      201,
    )
    await json(await call('DELETE', `/sites/${siteId}/cron-jobs/${shell.id}`), 204)
    const timeout = await call('POST', `/sites/${siteId}/cron-jobs`, {
      schedule: '@daily',
      command: 'true',
      timeoutSeconds: 3601,
    })
    expect(timeout.status).toBe(422)
  })

  test('a site keeps at most maxJobsPerSite jobs; WP-Cron only on WordPress sites', async () => {
    const other = await activeSite(customerId)
    for (let index = 0; index < 3; index++)
      await json(
        await call('POST', `/sites/${other}/cron-jobs`, { schedule: '@daily', command: `echo ${index}` }),
        201,
      )
    await expectProblem(
      await call('POST', `/sites/${other}/cron-jobs`, { schedule: '@daily', command: 'echo 4' }),
      409,
      'cron_job_limit_reached',
    )
    const plain = await activeSite(customerId, 'plain-test')
    await expectFieldProblem(
      await call('POST', `/sites/${plain}/cron-jobs`, { kind: 'wp-cron', schedule: '*/5 * * * *' }),
      422,
      'cron_wp_cron_unsupported',
      'body.kind',
    )
  })

  test('another customer’s token sees 404; cron:read reads only; the billing role reaches nothing', async () => {
    const job = await json<CronJob>(
      await call('POST', `/sites/${siteId}/cron-jobs`, { schedule: '@hourly', command: 'true' }),
      201,
    )
    const otherCustomer = (
      await json<{ id: string }>(await call('POST', '/customers', { name: 'Other' }), 201)
    ).id
    const outsider = await tp.token({ customerId: otherCustomer })
    await expectProblem(
      await call('GET', `/sites/${siteId}/cron-jobs`, undefined, outsider),
      404,
      'not_found',
    )
    await expectProblem(
      await call('GET', `/sites/${siteId}/cron-jobs/${job.id}`, undefined, outsider),
      404,
      'not_found',
    )
    await expectProblem(
      await call('PATCH', `/sites/${siteId}/cron-jobs/${job.id}`, { enabled: false }, outsider),
      404,
      'not_found',
    )
    await expectProblem(
      await call('POST', `/sites/${siteId}/cron-jobs/${job.id}/run`, undefined, outsider),
      404,
      'not_found',
    )
    await expectProblem(
      await call('GET', `/sites/${siteId}/cron-jobs/${job.id}/runs`, undefined, outsider),
      404,
      'not_found',
    )
    // A job under another site of the caller's is not reached through this one.
    const second = await activeSite(customerId)
    await expectProblem(await call('GET', `/sites/${second}/cron-jobs/${job.id}`), 404, 'not_found')

    const reader = await tp.token({ scopes: ['cron:read'], customerId })
    await json(await call('GET', `/sites/${siteId}/cron-jobs/${job.id}`, undefined, reader), 200)
    await expectProblem(
      await call('DELETE', `/sites/${siteId}/cron-jobs/${job.id}`, undefined, reader),
      403,
      'insufficient_scope',
    )
    const member = await createTestUser(tp.panel.store.db, {
      email: `billing-${crypto.randomUUID().slice(0, 6)}@cron.test`,
      staffRole: null,
    })
    await json(
      await call('POST', `/customers/${customerId}/members`, { email: member.email, role: 'billing' }),
      201,
    )
    const billing = await tp.token({ user: member })
    await expectProblem(
      await call('GET', `/sites/${siteId}/cron-jobs`, undefined, billing),
      403,
      'insufficient_scope',
    )
  })

  test('run now records a manual run; a second while it runs is 409 cron_job_running; runs are listed', async () => {
    const job = await json<CronJob>(
      await call('POST', `/sites/${siteId}/cron-jobs`, {
        schedule: '@yearly',
        command: 'true',
        enabled: false,
      }),
      201,
    )
    const run = await json<{ id: string; status: string; trigger: string }>(
      await call('POST', `/sites/${siteId}/cron-jobs/${job.id}/run`),
      202,
    )
    expect(run).toMatchObject({ status: 'running', trigger: 'manual' })
    await expectProblem(
      await call('POST', `/sites/${siteId}/cron-jobs/${job.id}/run`),
      409,
      'cron_job_running',
    )
    const runs = await json<{ items: { id: string }[] }>(
      await call('GET', `/sites/${siteId}/cron-jobs/${job.id}/runs`),
      200,
    )
    expect(runs.items.map((item) => item.id)).toEqual([run.id])
    await json(await call('GET', `/sites/${siteId}/cron-jobs/${job.id}/runs/${run.id}`), 200)
    const audit = await json<{ items: { action: string }[] }>(
      await call('GET', `/audit?subject=${job.id}`),
      200,
    )
    expect(audit.items.map((entry) => entry.action)).toContain('cron_job.run')
  })

  test('the schedule preview answers the next times, or the reason at query.schedule', async () => {
    const preview = await json<{ nextRuns: string[] }>(
      await call('GET', `/cron-schedules/next-runs?schedule=${encodeURIComponent('*/15 * * * *')}&count=3`),
      200,
    )
    expect(preview.nextRuns).toHaveLength(3)
    for (const at of preview.nextRuns) expect(new Date(at).getUTCMinutes() % 15).toBe(0)
    await expectFieldProblem(
      await call('GET', `/cron-schedules/next-runs?schedule=${encodeURIComponent('61 * * * *')}`),
      422,
      'invalid_cron_schedule',
      'query.schedule',
    )
  })

  test('a deleted site takes its jobs and runs along', async () => {
    const doomed = await activeSite(customerId)
    const job = await json<CronJob>(
      await call('POST', `/sites/${doomed}/cron-jobs`, {
        schedule: '@daily',
        command: 'true',
        enabled: false,
      }),
      201,
    )
    // A finished run, written as the scheduler writes one.
    const row = await cronTables(tp.panel.store.db)
      .selectFrom('cron_jobs')
      .selectAll()
      .where('id', '=', job.id)
      .executeTakeFirstOrThrow()
    await cronTables(tp.panel.store.db)
      .insertInto('cron_runs')
      .values({
        ...newRunRow(row as CronJobsTable, 'scheduled', new Date()),
        status: 'succeeded',
        launched: 1,
      })
      .execute()
    await json(await call('DELETE', `/sites/${doomed}`), 202)
    await waitFor('the site to be gone', async () => {
      if ((await call('GET', `/sites/${doomed}`)).status === 404) return true
      await Bun.sleep(20)
      return null
    })
    const left = await cronTables(tp.panel.store.db)
      .selectFrom('cron_runs')
      .select('id')
      .where('siteId', '=', doomed)
      .execute()
    expect(left).toEqual([])
    const jobs = await cronTables(tp.panel.store.db)
      .selectFrom('cron_jobs')
      .select('id')
      .where('siteId', '=', doomed)
      .execute()
    expect(jobs).toEqual([])
  })

  test('a site that is not running takes no jobs (cron_site_unavailable)', async () => {
    const broken = await activeSite(customerId)
    await tp.panel.store.db
      .withTables<{ sites: { id: string; status: string } }>()
      .updateTable('sites')
      .set({ status: 'failed' })
      .where('id', '=', broken)
      .execute()
    await expectProblem(
      await call('POST', `/sites/${broken}/cron-jobs`, { schedule: '@daily', command: 'true' }),
      409,
      'cron_site_unavailable',
    )
  })

  // Last: it drains the local node.
  test('WP-Cron given back on a node that does not answer changes nothing (cron_node_unreachable)', async () => {
    const nodes = await json<{ items: { id: string; driver: string }[] }>(await call('GET', '/nodes'), 200)
    const localNode = nodes.items.find((node) => node.driver === 'local')
    await json(await call('PATCH', `/nodes/${localNode?.id}`, { status: 'draining' }), 200)
    await json(
      await call('POST', '/nodes', { name: 'silent', driver: 'silent', hostname: 'silent.example.net' }),
      201,
    )
    // A WP-Cron job (as a WordPress site would have it) whose deletion must tell the node.
    const remote = await activeSite(customerId, 'plain-test')
    const at = new Date().toISOString()
    const row: CronJobsTable = {
      id: newId('cron'),
      siteId: remote,
      customerId,
      kind: 'wp-cron',
      schedule: '*/5 * * * *',
      command: 'php -f wp-cron.php',
      enabled: 0,
      timeoutSeconds: 300,
      nextRunAt: null,
      lastRunAt: null,
      lastStatus: null,
      createdAt: at,
      updatedAt: at,
    }
    await cronTables(tp.panel.store.db).insertInto('cron_jobs').values(row).execute()
    await expectProblem(
      await call('DELETE', `/sites/${remote}/cron-jobs/${row.id}`),
      503,
      'cron_node_unreachable',
    )
    await json(await call('GET', `/sites/${remote}/cron-jobs/${row.id}`), 200)
  })
})
