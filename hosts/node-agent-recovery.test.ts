// Kills at awkward moments on a remote node: the real panel and the node agent as separate processes on loopback,
// a WordPress site served by the agent's nginx and PHP-FPM. SIGKILL of the agent's whole process group (with its
// nginx master) in the middle of provisioning: the restarted agent ends what the master left (its workers held the
// ports: `bind() … Address already in use`) and the job finishes. SIGKILL of the nginx master alone, then of
// PHP-FPM's: the running agent serves again within seconds, and the site's deletion succeeds. A graceful stop shows
// the node disconnected within seconds.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Node } from '../plugins/nodes/contract.ts'
import { childrenOf, processInfo } from '../plugins/nodes/node/runtime/masters.ts'
import {
  apiClient,
  cliStaffToken,
  createProcessTracker,
  freePort,
  type TestAgent,
  waitFor,
} from './testing/index.ts'

const { tempDataDir, runCli, startStandalone, startAgent, cleanup } = createProcessTracker('plinth-recovery-')
const agentDir = tempDataDir()
const httpPort = freePort()
const domain = `recover-${crypto.randomUUID().slice(0, 8)}.example.test`

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field, as a client would.
type Json = Record<string, any>

let call: ReturnType<typeof apiClient>
let panel: Awaited<ReturnType<typeof startStandalone>>
let agentToken = ''
let nodeId = ''
let customerId = ''
let agent: TestAgent
let siteId = ''

const pidOf = (file: string) => {
  try {
    return Number(readFileSync(join(agentDir, file), 'utf8').trim()) || 0
  } catch {
    return 0
  }
}
const nginxPid = () => pidOf('nginx/nginx.pid')
/** The sandbox the site's PHP-FPM master runs in (its pid file's), whose one child is the master. */
const phpPid = () => pidOf(`php/sites/${siteId}/master.pid`)
const alive = (pids: readonly number[]) => pids.filter((pid) => processInfo(pid) !== null)

async function finished(jobId: string, ms = 120_000): Promise<Json> {
  return waitFor(
    `job ${jobId}`,
    async () => {
      const job = (await call<Json>('GET', `/jobs/${jobId}`)).body
      if (job.finishedAt) return job
      await Bun.sleep(100)
      return null
    },
    ms,
  )
}

/** The site's front page from the node, once it answers `status`; how long that took. */
async function servedWithin(status: number, check: () => boolean = () => true): Promise<number> {
  const started = performance.now()
  await waitFor(
    `the site to answer ${status}`,
    async () => {
      const answer = await agent.fromNode(domain).catch(() => null)
      await answer?.arrayBuffer()
      if (answer?.status === status && check()) return true
      await Bun.sleep(100)
      return null
    },
    30_000,
  )
  return performance.now() - started
}

const startNodeAgent = () => startAgent(panel, agentToken, { dataDir: agentDir, httpPort, ownGroup: true })

beforeAll(async () => {
  const dataDir = tempDataDir()
  panel = await startStandalone(dataDir, { LOCAL_SITES: 'files', JOB_LEASE_MS: '2000' })
  call = apiClient(panel, await cliStaffToken(runCli, dataDir))
  const nodes = await call<{ items: Node[] }>('GET', '/nodes')
  const local = nodes.body.items.find((node) => node.name === 'local')
  expect((await call('PATCH', `/nodes/${local?.id}`, { status: 'draining' })).status).toBe(200)
  expect(
    (
      await call('POST', '/database-servers', {
        name: 'mariadb-1',
        engine: 'mariadb',
        host: '127.0.0.1',
        port: 3306,
        username: 'root',
        password: '',
      })
    ).status,
  ).toBe(201)
  const node = await call<Node & { agentToken: string }>('POST', '/nodes', {
    name: 'agent-1',
    driver: 'agent',
    hostname: '127.0.0.1',
  })
  expect(node.status).toBe(201)
  nodeId = node.body.id
  agentToken = node.body.agentToken
  customerId = (await call<{ id: string }>('POST', '/customers', { name: 'Acme' })).body.id
  agent = await startNodeAgent()
}, 60_000)

afterAll(async () => {
  if (siteId) await call('DELETE', `/sites/${siteId}`).catch(() => {})
  await cleanup()
}, 60_000)

describe('kills on an agent node', () => {
  test('SIGKILL of the agent’s process group and its nginx master while provisioning: the restarted agent ends the orphaned workers and finishes the job', async () => {
    const created = await call<Json>('POST', '/sites', {
      customerId,
      name: 'Recovery Shop',
      type: 'wordpress',
      domain,
    })
    expect(created.status).toBe(201)
    siteId = created.body.id
    await waitFor(
      'the provision to reach the node',
      async () => {
        const job = (await call<Json>('GET', `/jobs/${created.body.jobId}`)).body
        if (job.progress >= 10) return true
        await Bun.sleep(50)
        return null
      },
      30_000,
    )
    await Bun.sleep(300)
    const master = nginxPid()
    const workers = childrenOf(master)
    expect(workers.length).toBeGreaterThan(0)
    // Everything the agent's unit runs, at once: its group, and its nginx master (in a session of its own).
    process.kill(-agent.process.pid, 'SIGKILL')
    process.kill(master, 'SIGKILL')
    await agent.process.exited
    // The master's workers outlived it, holding the node's ports.
    expect(alive(workers).length).toBeGreaterThan(0)

    const restarted = performance.now()
    agent = await startNodeAgent()
    expect(await finished(created.body.jobId)).toMatchObject({ status: 'succeeded' })
    const front = await agent.fromNode(domain)
    expect(front.status).toBe(200)
    expect(await front.text()).toContain('<title>Recovery Shop')
    console.log(`agent group killed to the job succeeded: ${(performance.now() - restarted).toFixed(0)} ms`)
    expect(alive(workers)).toEqual([])
    expect(agent.stdout.text).not.toContain('Address already in use')
  }, 180_000)

  test('SIGKILL of the nginx master alone: the running agent serves from a new master within seconds', async () => {
    const master = nginxPid()
    const workers = childrenOf(master)
    process.kill(master, 'SIGKILL')
    const ms = await servedWithin(
      200,
      () => nginxPid() !== master && processInfo(nginxPid()) !== null && alive(workers).length === 0,
    )
    console.log(`nginx master killed to served by a new one: ${ms.toFixed(0)} ms`)
    expect(ms).toBeLessThan(15_000)
    await agent.stdout.waitFor(/nginx had stopped \(killed\?\)/)
  }, 60_000)

  test('SIGKILL of the site’s PHP-FPM master: WordPress is served by a new one within seconds, and the site’s deletion succeeds', async () => {
    // A request first, so that the site's pool has a process (ended with its master, its namespace's init).
    expect((await agent.fromNode(domain)).status).toBe(200)
    const sandbox = phpPid()
    const master = childrenOf(sandbox)[0] ?? 0
    const children = childrenOf(master)
    expect(children.length).toBeGreaterThan(0)
    process.kill(master, 'SIGKILL')
    const ms = await servedWithin(
      200,
      () => phpPid() !== sandbox && processInfo(phpPid()) !== null && alive(children).length === 0,
    )
    console.log(`PHP-FPM master killed to served by a new one: ${ms.toFixed(0)} ms`)
    expect(ms).toBeLessThan(15_000)

    const deleting = await call<Json>('DELETE', `/sites/${siteId}`)
    expect(deleting.status).toBe(202)
    expect(await finished(deleting.body.jobId, 60_000)).toMatchObject({ status: 'succeeded', attempts: 1 })
    siteId = ''
    // The new master took the change: the site is no longer served.
    expect((await agent.fromNode(domain)).status).toBe(404)
  }, 90_000)
})

describe('an agent stopped gracefully', () => {
  test('shows its node disconnected within seconds, and connected again once restarted', async () => {
    expect((await call<Node>('GET', `/nodes/${nodeId}`)).body.agent.connected).toBe(true)
    const stopping = performance.now()
    await agent.stop()
    expect(agent.stdout.text).toContain('told the panel the agent stops')
    await waitFor(
      'the node to show its agent disconnected',
      async () => {
        if (!(await call<Node>('GET', `/nodes/${nodeId}`)).body.agent.connected) return true
        await Bun.sleep(100)
        return null
      },
      5_000,
    )
    console.log(`SIGTERM to the node shown disconnected: ${(performance.now() - stopping).toFixed(0)} ms`)
    agent = await startNodeAgent()
    expect((await call<Node>('GET', `/nodes/${nodeId}`)).body.agent.connected).toBe(true)
  }, 60_000)
})
