// Cron jobs run for real on the panel's local node (sites with their Unix users and cgroups): a scheduled job runs
// in the minute it is due as the site's user (its `id -u` in the run's output), its run listed with exit code and
// duration; a run past its timeout is killed and `timed_out`; the output kept is the tail, bounded; a job due while
// its previous run still runs is `skipped`; a suspended site's jobs do not run; a WP-Cron job turns WordPress's own
// off in wp-config.php, runs wp-cron.php as the site's user, and gives it back when deleted; a deleted site's jobs
// go with it. The scheduler's clock is the test's: no real minute is waited for. Node side: run once.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createTestPanel,
  expectProblem,
  freePort,
  removeNodeLeftovers,
  type TestPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import type { Site } from '../sites/contract.ts'
import { sitesPlugin } from '../sites/index.ts'
import type { CronJob, CronRun } from './contract.ts'
import { cronPlugin } from './index.ts'
import { disableLine } from './node/wp-config-cron.ts'

const folder = mkdtempSync(join(tmpdir(), 'plinth-cron-'))
const sitesDir = join(folder, 'sites')
// nginx's workers and the sites' users pass through to the sites' homes.
chmodSync(folder, 0o711)
/** The scheduler's clock: moved by the tests to the minute a job is due. */
let clock = new Date()
let tp: TestPanel
let token: string
let site: Site
let uid = 0

const call = (method: string, path: string, body?: unknown) =>
  tp.request(method, `/api/v1${path}`, { token, ...(body === undefined ? {} : { body }) })
async function json<T>(response: Response, status: number): Promise<T> {
  const text = await response.text()
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`)
  return (text ? JSON.parse(text) : null) as T
}
const poll = <T>(what: string, probe: () => Promise<T | null>, ms = 20_000) =>
  waitFor(
    what,
    async () => {
      const value = await probe()
      if (!value) await Bun.sleep(50)
      return value
    },
    ms,
  )

const newJob = async (body: Record<string, unknown>) =>
  json<CronJob>(await call('POST', `/sites/${site.id}/cron-jobs`, body), 201)
const runsOf = async (job: CronJob) =>
  (await json<{ items: CronRun[] }>(await call('GET', `/sites/${site.id}/cron-jobs/${job.id}/runs`), 200))
    .items
/** Waits for the job's run matching `match` to have ended; answers it. */
const ended = (job: CronJob, match: (run: CronRun) => boolean = () => true, ms?: number) =>
  poll(
    `a run of ${job.id} to end`,
    async () => (await runsOf(job)).find((run) => match(run) && run.status !== 'running') ?? null,
    ms,
  )
const runNow = async (job: CronJob) =>
  json<CronRun>(await call('POST', `/sites/${site.id}/cron-jobs/${job.id}/run`), 202)

beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      nodesPlugin({
        dataDir: join(folder, 'panel'),
        localServing: { dataDir: sitesDir, httpPort: freePort(), httpsPort: freePort() },
      }),
      sitesPlugin(),
      cronPlugin({ clock: () => clock, tickIntervalMs: 100 }),
    ],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  token = await tp.token()
  const customer = await json<{ id: string }>(await call('POST', '/customers', { name: 'Cron Co' }), 201)
  const domain = `cron-${crypto.randomUUID().slice(0, 8)}.example.test`
  const made = await json<Site>(
    await call('POST', '/sites', { customerId: customer.id, name: domain, type: 'wordpress', domain }),
    201,
  )
  site = await poll(
    'the site to be active',
    async () => {
      const now = await json<Site>(await call('GET', `/sites/${made.id}`), 200)
      return now.status === 'active' ? now : null
    },
    60_000,
  )
  uid = statSync(join(sitesDir, 'sites', site.id, 'htdocs')).uid
}, 90_000)

afterAll(async () => {
  await tp?.panel.close()
  removeNodeLeftovers(sitesDir)
  rmSync(folder, { recursive: true, force: true })
})

describe('cron jobs on a real node', () => {
  test('a scheduled job runs in its minute as the site’s user; its run is listed with exit code, duration and output', async () => {
    expect(uid).toBeGreaterThan(0)
    const job = await newJob({
      schedule: '*/5 * * * *',
      command: 'id -u; echo "home=$HOME"; echo warned >&2; exit 3',
    })
    expect(job.nextRunAt).not.toBeNull()
    const due = new Date(job.nextRunAt as string)
    expect(due.getUTCMinutes() % 5).toBe(0)
    expect(due.getUTCSeconds()).toBe(0)
    // Nothing runs before its minute.
    clock = new Date(due.getTime() - 1000)
    await Bun.sleep(400)
    expect(await runsOf(job)).toEqual([])
    // Its minute comes: the run starts at once (the scheduler looks every 100 ms here, every 5 s by default).
    clock = new Date(due.getTime() + 1000)
    const run = await ended(job)
    expect(run).toMatchObject({
      trigger: 'scheduled',
      status: 'failed',
      exitCode: 3,
      outputTruncated: false,
      error: null,
    })
    expect(Date.parse(run.startedAt) - due.getTime()).toBeLessThan(60_000)
    expect(Date.parse(run.startedAt)).toBeGreaterThanOrEqual(due.getTime())
    expect(run.durationMs).toBeGreaterThanOrEqual(0)
    expect(run.durationMs).toBeLessThan(10_000)
    const lines = run.output.trim().split('\n')
    expect(lines).toContain(String(uid))
    expect(lines).toContain(`home=${join(sitesDir, 'sites', site.id)}`)
    expect(lines).toContain('warned')
    const after = await json<CronJob>(await call('GET', `/sites/${site.id}/cron-jobs/${job.id}`), 200)
    expect(after.nextRunAt).toBe(new Date(due.getTime() + 5 * 60_000).toISOString())
    expect(after.lastStatus).toBe('failed')
    // A failed run is an event.
    const events = await tp.panel.store.db
      .withTables<{ event_outbox: { kind: string; payload: string } }>()
      .selectFrom('event_outbox')
      .selectAll()
      .where('kind', '=', 'cron_run.failed')
      .execute()
    expect(events.map((event) => JSON.parse(event.payload).id)).toContain(run.id)
    // Runs once per minute, however many looks the scheduler takes in it.
    await Bun.sleep(400)
    expect(await runsOf(job)).toHaveLength(1)
    await json(await call('DELETE', `/sites/${site.id}/cron-jobs/${job.id}`), 204)
  }, 30_000)

  test('a run past its timeout is killed and timed_out; its output is the bounded tail', async () => {
    const job = await newJob({
      schedule: '@daily',
      command: 'head -c 100000 /dev/zero | tr "\\0" a; echo; echo tail-end; sleep 30; echo never',
      timeoutSeconds: 3,
    })
    const started = await runNow(job)
    expect(started).toMatchObject({ status: 'running', trigger: 'manual' })
    const run = await ended(job)
    expect(run.id).toBe(started.id)
    expect(run.status).toBe('timed_out')
    expect(run.exitCode).toBeNull()
    expect(run.durationMs).toBeGreaterThanOrEqual(3000)
    expect(run.durationMs).toBeLessThan(10_000)
    expect(run.outputTruncated).toBe(true)
    expect(Buffer.byteLength(run.output)).toBeLessThanOrEqual(8192)
    expect(run.output.trimEnd().endsWith('tail-end')).toBe(true)
    expect(run.output).not.toContain('never')
    // Nothing of it is left running as the site's user.
    const left = Bun.spawnSync(['pgrep', '-u', String(uid), '-f', 'sleep 30'])
      .stdout.toString()
      .trim()
    expect(left).toBe('')
    await json(await call('DELETE', `/sites/${site.id}/cron-jobs/${job.id}`), 204)
  }, 30_000)

  test('a job due while its previous run still runs is skipped; a suspended site’s jobs do not run', async () => {
    const job = await newJob({ schedule: '* * * * *', command: 'sleep 3' })
    const manual = await runNow(job)
    await json(await call('POST', `/sites/${site.id}/cron-jobs/${job.id}/run`), 409)
    clock = new Date(Date.parse(job.nextRunAt as string) + 500)
    const skipped = await ended(job, (run) => run.trigger === 'scheduled')
    expect(skipped).toMatchObject({ status: 'skipped', error: { code: 'previous_run_running' } })
    expect((await ended(job, (run) => run.id === manual.id)).status).toBe('succeeded')
    // Suspended: the next minute passes without a run.
    await json(await call('POST', `/sites/${site.id}/suspend`), 200)
    await poll('the site suspended', async () => {
      const now = await json<Site>(await call('GET', `/sites/${site.id}`), 200)
      return now.status === 'suspended' || null
    })
    const before = (await runsOf(job)).length
    clock = new Date(clock.getTime() + 60_000)
    await Bun.sleep(500)
    expect(await runsOf(job)).toHaveLength(before)
    await json(await call('POST', `/sites/${site.id}/cron-jobs/${job.id}/run`), 409)
    const unsuspended = await json<Site>(await call('POST', `/sites/${site.id}/unsuspend`), 200)
    await poll('the site active again on its node', async () => {
      const job = await json<{ status: string }>(await call('GET', `/jobs/${unsuspended.jobId}`), 200)
      return job.status === 'succeeded' || null
    })
    await json(await call('DELETE', `/sites/${site.id}/cron-jobs/${job.id}`), 204)
  }, 40_000)

  test('WP-Cron as a cron job: DISABLE_WP_CRON in wp-config.php, wp-cron.php run as the site’s user, undone on delete', async () => {
    const htdocs = join(sitesDir, 'sites', site.id, 'htdocs')
    const config = join(htdocs, 'wp-config.php')
    const original = "<?php\ndefine('DB_NAME', 'x');\n"
    writeFileSync(config, original)
    writeFileSync(
      join(htdocs, 'wp-cron.php'),
      "<?php\necho 'wp-cron ran as ', getmyuid() === posix_geteuid() ? 'owner' : 'other', \"\\n\";\n",
    )
    for (const file of ['wp-config.php', 'wp-cron.php']) chownSync(join(htdocs, file), uid, uid)
    const job = await newJob({ kind: 'wp-cron', schedule: '*/5 * * * *' })
    expect(job).toMatchObject({ kind: 'wp-cron', command: 'php -f wp-cron.php' })
    expect(readFileSync(config, 'utf8')).toBe(`<?php\n${disableLine}\n${original.slice(6)}`)
    expect(statSync(config).uid).toBe(uid)
    await expectProblem(
      await call('POST', `/sites/${site.id}/cron-jobs`, { kind: 'wp-cron', schedule: '@hourly' }),
      409,
      'cron_wp_cron_exists',
    )
    // The refusal left WordPress's own WP-Cron off.
    expect(readFileSync(config, 'utf8')).toContain(disableLine)
    await runNow(job)
    const run = await ended(job)
    expect(run).toMatchObject({ status: 'succeeded', exitCode: 0 })
    expect(run.output).toContain('wp-cron ran as owner')
    await json(await call('DELETE', `/sites/${site.id}/cron-jobs/${job.id}`), 204)
    expect(readFileSync(config, 'utf8')).toBe(original)
  }, 30_000)

  test('a deleted site’s jobs and runs go with it', async () => {
    const job = await newJob({ schedule: '@hourly', command: 'sleep 20' })
    await runNow(job)
    await poll('the run to start on the node', async () => {
      const out = Bun.spawnSync(['pgrep', '-u', String(uid), '-f', 'sleep 20'])
        .stdout.toString()
        .trim()
      return out !== '' || null
    })
    await json(await call('DELETE', `/sites/${site.id}`), 202)
    await poll(
      'the site to be gone',
      async () => (await call('GET', `/sites/${site.id}`)).status === 404 || null,
      60_000,
    )
    const rows = await tp.panel.store.db
      .withTables<{ cron_jobs: { id: string }; cron_runs: { id: string } }>()
      .selectFrom('cron_runs')
      .select('id')
      .execute()
    expect(rows).toEqual([])
    const left = Bun.spawnSync(['pgrep', '-u', String(uid), '-f', 'sleep 20'])
      .stdout.toString()
      .trim()
    expect(left).toBe('')
  }, 90_000)
})
