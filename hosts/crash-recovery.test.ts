// SIGKILL in the middle of provisioning, black-box: the real server process (with the `slow` node driver) is killed
// at chosen points of a site's provisioning and started again on the same DATA_DIR; the job must finish once.

import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, lstatSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Node } from '../plugins/nodes/contract.ts'
import type { Site } from '../plugins/sites/contract.ts'
import {
  apiClient,
  cliStaffToken,
  createProcessTracker,
  killHard,
  type Standalone,
} from './testing/host-process.ts'
import { installationRows } from './testing/installation-rows.ts'
import type { HoldPoint } from './testing/slow-node-driver.ts'

const { tempDataDir, runCli, startStandalone, cleanup } = createProcessTracker('plinth-crash-')
afterAll(cleanup)

const slowHost = 'hosts/testing/slow-node-host.ts'
/** Short leases, so a dead worker's job is taken up again about two seconds after the kill. */
const leaseMs = 2_000

/** The fields of a job (`GET /api/v1/jobs/{id}`) these tests read. */
interface Job {
  readonly id: string
  readonly status: string
  readonly attempts: number
  readonly progress: number
  readonly step: string | null
  readonly result: Record<string, unknown> | null
  readonly error: unknown
  readonly finishedAt: string | null
}

/** Starts the slow-node host on `dataDir`, held at `hold` (or running through). */
function startSlowHost(dataDir: string, hold?: HoldPoint): Promise<Standalone> {
  return startStandalone(
    dataDir,
    { JOB_LEASE_MS: String(leaseMs), SLOW_NODE_PAUSE_MS: '20', SLOW_NODE_HOLD: hold ?? '' },
    slowHost,
  )
}

/** What a scenario starts from: a slow node (the local one drained), a customer, and a site being provisioned. */
interface Scenario {
  readonly dataDir: string
  readonly token: string
  readonly node: Node
  readonly site: Site
  readonly jobId: string
}

/** Starts the host held at `hold`, adds the slow node, drains `local`, and creates a customer and a site. */
async function siteBeingProvisioned(hold: HoldPoint): Promise<{ server: Standalone; scenario: Scenario }> {
  const dataDir = tempDataDir()
  const server = await startSlowHost(dataDir, hold)
  const token = await cliStaffToken(runCli, dataDir)
  const call = apiClient(server, token)
  const nodes = await call<{ items: Node[] }>('GET', '/nodes')
  const local = nodes.body.items.find((node) => node.name === 'local')
  expect(local).toBeDefined()
  expect((await call('PATCH', `/nodes/${local?.id}`, { status: 'draining' })).status).toBe(200)
  const node = await call<Node>('POST', '/nodes', { name: 'slow-1', driver: 'slow', hostname: 'localhost' })
  expect(node.status).toBe(201)
  const customer = await call<{ id: string }>('POST', '/customers', { name: 'Acme' })
  expect(customer.status).toBe(201)
  const site = await call<Site>('POST', '/sites', {
    customerId: customer.body.id,
    name: 'Shop',
    type: 'plain',
    domain: 'shop.example.com',
  })
  expect(site.status).toBe(201)
  expect(site.body).toMatchObject({ status: 'provisioning', nodeId: node.body.id })
  const jobId = site.body.jobId ?? ''
  expect(jobId).toStartWith('job_')
  return { server, scenario: { dataDir, token, node: node.body, site: site.body, jobId } }
}

/** Polls until `read` answers something, or fails after `ms` naming `what`. */
async function eventually<T>(what: string, read: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await read()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`)
    await Bun.sleep(25)
  }
}

/** The site's files under the data directory, relative and sorted (temporary files would show here). */
function siteFiles(scenario: Scenario): string[] {
  const dir = join(scenario.dataDir, 'sites', scenario.site.id)
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((path) => !lstatSync(join(dir, path)).isDirectory())
    .sort()
}

const siteFile = (scenario: Scenario, path: string) => join(scenario.dataDir, 'sites', scenario.site.id, path)
/** The site's nginx server block, which the local driver keeps in `<dataDir>/nginx/sites/<site id>.conf`. */
const serverBlockOf = (scenario: Scenario) =>
  join(scenario.dataDir, 'nginx', 'sites', `${scenario.site.id}.conf`)

interface OutboxRow {
  kind: string
  payload: string
}

/** The outbox events about the scenario's site or its job, oldest first, with parsed data. */
async function eventsOf(scenario: Scenario): Promise<{ kind: string; data: Record<string, unknown> }[]> {
  const rows = await installationRows<OutboxRow>(
    scenario.dataDir,
    'SELECT kind, payload FROM event_outbox ORDER BY id',
  )
  return rows
    .map((row) => ({ kind: row.kind, data: JSON.parse(row.payload) as Record<string, unknown> }))
    .filter(({ data }) => data.id === scenario.site.id || data.id === scenario.jobId)
}

/** The job row as the store holds it. */
async function jobRow(scenario: Scenario) {
  const [row] = await installationRows<{
    status: string
    attempts: number
    progress: number
    step: string | null
  }>(scenario.dataDir, 'SELECT status, attempts, progress, step FROM jobs WHERE id = ?', [scenario.jobId])
  return row
}

/**
 * After the last restart: the job succeeded once with `attempts`, the site is active on the slow node, the node's
 * files are whole (and nothing else is there), and the store recorded each effect once.
 */
async function expectFinishedOnce(server: Standalone, scenario: Scenario, attempts: number): Promise<void> {
  const call = apiClient(server, scenario.token)
  // The site turns active in the job's last step; the job records its end just after, in its own transaction.
  const job = await eventually('the job to end', async () => {
    const current = await call<Job>('GET', `/jobs/${scenario.jobId}`)
    return current.body.finishedAt === null ? undefined : current.body
  })
  const site = await call<Site>('GET', `/sites/${scenario.site.id}`)
  expect(site.body).toMatchObject({ status: 'active', nodeId: scenario.node.id, jobId: scenario.jobId })
  expect(job).toMatchObject({
    status: 'succeeded',
    attempts,
    progress: 100,
    result: { nodeId: scenario.node.id },
    error: null,
  })

  // The node: exactly the local driver's layout for this one site, no temporary or parked leftovers.
  expect(readdirSync(join(scenario.dataDir, 'sites'))).toEqual([scenario.site.id])
  expect(siteFiles(scenario)).toEqual(['htdocs/index.html', 'state.json'])
  expect(readdirSync(join(scenario.dataDir, 'nginx', 'sites'))).toEqual([`${scenario.site.id}.conf`])
  expect(lstatSync(siteFile(scenario, 'logs')).isDirectory()).toBe(true)
  const config = readFileSync(serverBlockOf(scenario), 'utf8')
  expect(config).toContain('server_name shop.example.com;')
  expect(config).toContain(`root "${siteFile(scenario, 'htdocs')}";`)
  expect(config).not.toContain('return 503')
  expect(JSON.parse(readFileSync(siteFile(scenario, 'state.json'), 'utf8'))).toMatchObject({
    siteId: scenario.site.id,
    domain: 'shop.example.com',
    state: 'active',
  })

  // The store: one job for the site, one finish, one activation, one creation, and the audit log says so once.
  const jobs = await installationRows<{ id: string }>(
    scenario.dataDir,
    'SELECT id FROM jobs WHERE subject_id = ?',
    [scenario.site.id],
  )
  expect(jobs.map((row) => row.id)).toEqual([scenario.jobId])
  const events = await eventsOf(scenario)
  expect(events.map(({ kind, data }) => `${kind} ${String(data.status)}`)).toEqual([
    'site.created provisioning',
    'site.updated active',
    'job.finished succeeded',
  ])
  expect(events.at(-1)?.data).toMatchObject({
    id: scenario.jobId,
    attempts,
    result: { nodeId: scenario.node.id },
  })
  const audit = await call<{ items: { action: string }[] }>('GET', `/audit?subject=${scenario.site.id}`)
  expect(audit.status).toBe(200)
  expect(audit.body.items.map((entry) => entry.action)).toEqual(['site.create'])
}

describe('a server killed with SIGKILL in the middle of provisioning a site', () => {
  test('resumes the job after a kill while its step is under way, and again after the node’s files were written: it succeeds once, on its third attempt', async () => {
    const { server: first, scenario } = await siteBeingProvisioned('before-files')
    await first.stdout.waitFor(new RegExp(`holding ${scenario.site.id} at before-files`))
    // The job is running and has made progress: its provisioning step is under way on the node.
    const running = await apiClient(first, scenario.token)<Job>('GET', `/jobs/${scenario.jobId}`)
    expect(running.body).toMatchObject({
      status: 'running',
      attempts: 1,
      progress: 10,
      step: 'Provisioning on its node',
    })
    await killHard(first)
    // Nothing was written on the node yet; the store still says the dead worker runs it.
    expect(existsSync(join(scenario.dataDir, 'sites', scenario.site.id))).toBe(false)
    expect(await jobRow(scenario)).toMatchObject({ status: 'running', attempts: 1 })

    // Second life: the dead worker's lease runs out, the job is taken up again, the node's files are written,
    // and the process dies before the job can record it.
    const second = await startSlowHost(scenario.dataDir, 'after-files')
    await second.stdout.waitFor(new RegExp(`holding ${scenario.site.id} at after-files`))
    const held = await apiClient(second, scenario.token)<Job>('GET', `/jobs/${scenario.jobId}`)
    expect(held.body).toMatchObject({ status: 'running', attempts: 2 })
    expect(
      (await apiClient(second, scenario.token)<Site>('GET', `/sites/${scenario.site.id}`)).body.status,
    ).toBe('provisioning')
    await killHard(second)
    expect(siteFiles(scenario)).toEqual(['htdocs/index.html', 'state.json'])
    expect(existsSync(serverBlockOf(scenario))).toBe(true)
    // The customer's own page, uploaded before the restart, must survive the repeated step.
    const index = siteFile(scenario, 'htdocs/index.html')
    expect(readFileSync(index, 'utf8')).toContain('<h1>shop.example.com</h1>')
    writeFileSync(index, '<p>Acme’s own page</p>\n')
    const indexInode = statSync(index).ino

    const third = await startSlowHost(scenario.dataDir)
    await expectFinishedOnce(third, scenario, 3)
    expect(readFileSync(index, 'utf8')).toBe('<p>Acme’s own page</p>\n')
    expect(statSync(index).ino).toBe(indexInode)
    await third.stdout.waitFor(/provisioned site_/)
    expect(third.stdout.text.match(/provisioned site_/g)).toHaveLength(1)
  }, 60_000)

  test('a kill halfway through writing a file on the node leaves nothing half-written: the restart completes the site and no temporary file remains', async () => {
    const { server: first, scenario } = await siteBeingProvisioned('mid-write')
    const [, temporary = ''] = await first.stdout.waitFor(
      new RegExp(`holding ${scenario.site.id} at mid-write \\((\\S+)\\)`),
    )
    await killHard(first)
    // The crash left a temporary file beside a final one not yet in place, and a job still marked running.
    expect(siteFiles(scenario)).toContain(temporary)
    expect(siteFiles(scenario)).not.toContain(temporary.replace(/\.\d+\.[0-9a-f]+\.tmp$/, ''))
    expect(await jobRow(scenario)).toMatchObject({
      status: 'running',
      attempts: 1,
      progress: 10,
      step: 'Provisioning on its node',
    })

    const second = await startSlowHost(scenario.dataDir)
    await expectFinishedOnce(second, scenario, 2)
  }, 60_000)
})
