// A lost node's site comes back on another from an offsite target: the real panel and two node agents as separate
// processes on loopback, a WordPress site on the first agent backed up to a real SFTP server (sshd), the first node
// then stopped and its data removed, and the backup restored into a new site on the second node, which serves the
// first site's content under its own domain; before that, the SFTP server refusing makes a failed backup. Node side
// (agents, nginx, restic, sshd): run once.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import mysql from 'mysql2/promise'
import {
  apiClient,
  cliStaffToken,
  createProcessTracker,
  removeNodeLeftovers,
  type TestAgent,
  waitFor,
} from '../../hosts/testing/index.ts'
import type { Backup } from './contract.ts'
import { type SftpPeer, startSftpServer } from './testing/sftp-server.ts'

const { tempDataDir, runCli, startStandalone, startAgent, cleanup } = createProcessTracker('plinth-bk-agent-')
const tag = crypto.randomUUID().slice(0, 8)
const domain = `lost-${tag}.example.test`
const cloneDomain = `found-${tag}.example.test`
let call: ReturnType<typeof apiClient>
let first: TestAgent
let second: TestAgent
let secondNodeId = ''
let sftp: SftpPeer
let siteId = ''
const databases: string[] = []

async function finished(jobId: string, ms = 240_000) {
  return waitFor(
    `job ${jobId}`,
    async () => {
      const job = (
        await call<{
          status: string
          finishedAt: string | null
          error: unknown
          result: Record<string, unknown>
        }>('GET', `/jobs/${jobId}`)
      ).body
      if (job.finishedAt) return job
      await Bun.sleep(200)
      return null
    },
    ms,
  )
}

/** A node run by a new agent, its id and the agent. */
async function agentNode(name: string): Promise<{ id: string; agent: TestAgent }> {
  const node = await call<{ id: string; agentToken: string }>('POST', '/nodes', {
    name,
    driver: 'agent',
    hostname: '127.0.0.1',
  })
  expect(node.status).toBe(201)
  return { id: node.body.id, agent: await startAgent(panelOf, node.body.agentToken) }
}
let panelOf: Parameters<typeof startAgent>[0]

beforeAll(async () => {
  const dataDir = tempDataDir()
  panelOf = await startStandalone(dataDir, { LOCAL_SITES: 'files' })
  call = apiClient(panelOf, await cliStaffToken(runCli, dataDir))
  const nodes = await call<{ items: { id: string; name: string }[] }>('GET', '/nodes')
  const local = nodes.body.items.find((node) => node.name === 'local')
  expect((await call('PATCH', `/nodes/${local?.id}`, { status: 'draining' })).status).toBe(200)
  expect(
    (
      await call('POST', '/database-servers', {
        name: `mariadb-${tag}`,
        engine: 'mariadb',
        host: '127.0.0.1',
        port: 3306,
        username: 'root',
        password: '',
      })
    ).status,
  ).toBe(201)
  sftp = await startSftpServer()
  const target = await call<{ id: string }>('POST', '/backup-targets', {
    name: `offsite-${tag}`,
    kind: 'sftp',
    host: sftp.host,
    port: sftp.port,
    username: sftp.username,
    path: sftp.path,
    privateKey: sftp.privateKey,
    default: true,
  })
  expect(target.status).toBe(201)
  first = (await agentNode('agent-1')).agent
  const customer = await call<{ id: string }>('POST', '/customers', { name: 'Acme' })
  const site = await call<{ id: string; jobId: string }>('POST', '/sites', {
    customerId: customer.body.id,
    name: 'Lost Blog',
    type: 'wordpress',
    domain,
  })
  expect(site.status).toBe(201)
  siteId = site.body.id
  expect(await finished(site.body.jobId)).toMatchObject({ status: 'succeeded' })
}, 300_000)

afterAll(async () => {
  await first?.stop().catch(() => {})
  await second?.stop().catch(() => {})
  const root = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', password: '' })
  for (const name of databases) await root.query(`DROP DATABASE IF EXISTS \`${name}\``).catch(() => {})
  await root.end()
  await sftp?.close()
  await cleanup()
}, 120_000)

describe('a site whose node is lost', () => {
  test('comes back as a clone on another node from its offsite backup', async () => {
    const listed = await call<{ items: { name: string }[] }>('GET', `/databases?siteId=${siteId}`)
    databases.push(...listed.body.items.map((database) => database.name))
    const marker = `Kept offsite ${tag}`
    const root = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', password: '' })
    await root.query(
      `UPDATE \`${databases[0]}\`.wp_options SET option_value = ? WHERE option_name = 'blogname'`,
      [marker],
    )
    await root.end()
    const started = await call<{ jobId: string; backup: Backup }>('POST', `/sites/${siteId}/backups`)
    expect(started.status).toBe(202)
    const took = performance.now()
    expect(await finished(started.body.jobId)).toMatchObject({ status: 'succeeded' })
    console.log(
      `a WordPress site's first backup through the agent to SFTP: ${Math.round(performance.now() - took)} ms`,
    )
    const backup = (await call<Backup>('GET', `/sites/${siteId}/backups/${started.body.backup.id}`)).body
    expect(backup).toMatchObject({ status: 'completed', verified: true })

    // A target that refuses (sshd stopped): the backup fails and says so, and nothing is completed.
    await sftp.refuse()
    try {
      const refused = await call<{ jobId: string; backup: Backup }>('POST', `/sites/${siteId}/backups`)
      expect(refused.status).toBe(202)
      expect(await finished(refused.body.jobId)).toMatchObject({ status: 'failed' })
      const failed = (await call<Backup>('GET', `/sites/${siteId}/backups/${refused.body.backup.id}`)).body
      expect(failed).toMatchObject({
        status: 'failed',
        verified: false,
        error: { code: 'repository_unreachable' },
      })
    } finally {
      await sftp.resume()
    }

    // The first node is gone, with every file it held.
    await first.stop()
    removeNodeLeftovers(first.dataDir)
    rmSync(first.dataDir, { recursive: true, force: true })
    const found = await agentNode('agent-2')
    second = found.agent
    secondNodeId = found.id

    const restored = await call<{ jobId: string; siteId: string }>(
      'POST',
      `/sites/${siteId}/backups/${backup.id}/restore`,
      { files: true, databases: true, into: { newSite: { domain: cloneDomain, nodeId: secondNodeId } } },
    )
    expect(restored.status).toBe(202)
    const job = await finished(restored.body.jobId)
    expect(job.error).toBeNull()
    expect(job.status).toBe('succeeded')
    const clone = await call<{ nodeId: string; status: string }>('GET', `/sites/${restored.body.siteId}`)
    expect(clone.body).toMatchObject({ nodeId: secondNodeId, status: 'active' })
    const cloneDatabases = await call<{ items: { name: string }[] }>(
      'GET',
      `/databases?siteId=${restored.body.siteId}`,
    )
    databases.push(...cloneDatabases.body.items.map((database) => database.name))
    const front = await second.fromNode(cloneDomain)
    expect(front.status).toBe(200)
    const page = await front.text()
    expect(page).toContain(marker)
    expect(page).not.toContain(`//${domain}`)
  }, 900_000)
})
