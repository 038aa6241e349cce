// The agent's side of the panel over HTTP, with the test playing the agent: commands handed out, sent again when the
// answer to a poll was lost or the agent restarted, never while the agent holds them, and answered once; a
// certificate's command sealed at rest and carried out on a site runtime as the agent does.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { X509Certificate } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Db, definePlugin, JobFailure } from '../../../core/index.ts'
import {
  createTestPanel,
  filesOnlyNode,
  makeCertificate,
  type TestPanel,
  waitFor,
} from '../../../hosts/testing/index.ts'
import {
  type NodeDirectory,
  nodeCommand,
  nodeDirectory,
  type SiteCertificate,
  type SiteReport,
  type SiteSpec,
} from '../contract.ts'
import type { NodesTables } from '../migrations.ts'
import { agentNode } from '../node/agent/agent-node.ts'
import { createNode } from '../node/node.ts'
import { runtimeLayout } from '../node/runtime/layout.ts'
import type { AgentCommand, AgentWork } from './protocol.ts'

let tp: TestPanel
let staff: string
let agentToken: string
let nodeId: string
let customerId: string
let directory: NodeDirectory
let db: Db
const runtimeDir = mkdtempSync(join(tmpdir(), 'plinth-agent-runtime-'))

/** Keeps the node directory (to call the agent driver as a job would) and the store (to read commands at rest). */
const driverCaller = definePlugin({
  name: 'driver-caller',
  version: '1.0.0',
  description: 'Keeps the node directory and the store for the tests.',
  requires: ['nodes'],
  setup(context) {
    directory = context.use(nodeDirectory)
    db = context.db
  },
})

const capabilities = filesOnlyNode
const work = (session: string, holding: string[] = [], waitSeconds = 0) =>
  tp.request('POST', '/api/v1/agent/work', {
    body: { session, version: 'test', capabilities, holding, waitSeconds },
    headers: { authorization: `Bearer ${agentToken}` },
  })
const answer = (id: string, ok = true) =>
  tp.request('POST', `/api/v1/agent/commands/${id}`, {
    body: ok ? { ok: true } : { ok: false, error: { message: 'disk full', code: 'disk_full' } },
    headers: { authorization: `Bearer ${agentToken}` },
  })

beforeAll(async () => {
  tp = await createTestPanel({
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    plugins: [driverCaller],
  })
  tp.panel.start()
  staff = await tp.token()
  const nodes = (await (await tp.request('GET', '/api/v1/nodes', { token: staff })).json()) as {
    items: { id: string }[]
  }
  await tp.request('PATCH', `/api/v1/nodes/${nodes.items[0]?.id}`, {
    token: staff,
    body: { status: 'draining' },
  })
  const node = (await (
    await tp.request('POST', '/api/v1/nodes', {
      token: staff,
      body: { name: 'remote', driver: 'agent', hostname: '10.0.0.9' },
    })
  ).json()) as { id: string; agentToken: string }
  nodeId = node.id
  agentToken = node.agentToken
  customerId = (
    (await (
      await tp.request('POST', '/api/v1/customers', { token: staff, body: { name: 'Acme' } })
    ).json()) as { id: string }
  ).id
})
afterAll(async () => {
  await tp.panel.close()
  rmSync(runtimeDir, { recursive: true, force: true })
})

/** Creates a site on the agent node; answers it and the first poll's command for it. */
async function siteWithCommand(
  session: string,
): Promise<{ siteId: string; jobId: string; command: AgentCommand }> {
  const response = await tp.request('POST', '/api/v1/sites', {
    token: staff,
    body: {
      customerId,
      name: 'Shop',
      type: 'wordpress',
      domain: `shop-${crypto.randomUUID().slice(0, 8)}.example.com`,
    },
  })
  const site = (await response.json()) as { id: string; jobId: string; nodeId: string }
  expect(site.nodeId).toBe(nodeId)
  const command = await waitFor('the provision command', async () => {
    const polled = (await (await work(session)).json()) as AgentWork
    return polled.commands.find((item) => item.subject === site.id) ?? null
  })
  return { siteId: site.id, jobId: site.jobId, command }
}

describe('the agent protocol', () => {
  test('a poll says the agent is connected, with its version and what the node can run', async () => {
    const polled = (await (await work('session-one')).json()) as AgentWork
    expect(polled.nodeId).toBe(nodeId)
    const node = (await (await tp.request('GET', `/api/v1/nodes/${nodeId}`, { token: staff })).json()) as {
      agent: Record<string, unknown>
    }
    expect(node.agent).toMatchObject({ connected: true, version: 'test', capabilities })
  })

  test('a command whose poll answer was lost comes again; one the agent holds does not; its answer finishes the job', async () => {
    const { jobId, command } = await siteWithCommand('session-two')
    expect(command).toMatchObject({ operation: 'provision', jobId, attempt: 1 })
    // The agent never got that answer: it does not hold the command, so the next poll brings it again.
    const again = (await (await work('session-two')).json()) as AgentWork
    expect(again.commands.map((item) => item.id)).toContain(command.id)
    // Now it holds it: not sent again while it works on it.
    const held = (await (await work('session-two', [command.id])).json()) as AgentWork
    expect(held.commands.map((item) => item.id)).not.toContain(command.id)
    expect(((await (await answer(command.id)).json()) as { accepted: boolean }).accepted).toBe(true)
    // A second answer changes nothing.
    expect(((await (await answer(command.id)).json()) as { accepted: boolean }).accepted).toBe(false)
    const job = await waitFor('the job', async () => {
      const read = (await (await tp.request('GET', `/api/v1/jobs/${jobId}`, { token: staff })).json()) as {
        status: string
        attempts: number
      }
      return read.status === 'succeeded' || read.status === 'failed' ? read : null
    })
    expect(job).toMatchObject({ status: 'succeeded', attempts: 1 })
  })

  test('an agent that restarted gets the commands its earlier run never answered', async () => {
    const { command } = await siteWithCommand('session-three')
    const restarted = (await (await work('session-four', [])).json()) as AgentWork
    expect(restarted.commands.map((item) => item.id)).toContain(command.id)
    await answer(command.id)
  })

  test('a failed command fails the attempt, and the job’s next attempt sends it again', async () => {
    const { jobId, command } = await siteWithCommand('session-five')
    await answer(command.id, false)
    const retry = await waitFor('the second attempt’s command', async () => {
      const polled = (await (await work('session-five', [])).json()) as AgentWork
      return polled.commands.find((item) => item.jobId === jobId && item.attempt === 2) ?? null
    })
    expect(retry.id).not.toBe(command.id)
    await answer(retry.id)
  })

  test('the work routes take the agent token, and only a node’s own', async () => {
    const anonymous = await tp.request('POST', '/api/v1/agent/work', {
      body: { session: 'x'.repeat(8), version: 't', capabilities },
    })
    expect(anonymous.status).toBe(401)
    const wrong = await tp.request('POST', '/api/v1/agent/work', {
      body: { session: 'x'.repeat(8), version: 't', capabilities },
      headers: { authorization: `Bearer plinth_node_${'a'.repeat(46)}` },
    })
    expect(wrong.status).toBe(401)
  })
})

describe('certificates and challenges through the agent', () => {
  const commandRow = (id: string) =>
    db
      .withTables<NodesTables>()
      .selectFrom('node_commands')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
  const commandOf = (session: string, operation: string) =>
    waitFor(`the ${operation} command`, async () => {
      const polled = (await (await work(session)).json()) as AgentWork
      return polled.commands.find((item) => item.operation === operation) ?? null
    })

  test('install-certificate carries the site id and the certificate, sealed at rest and cleared once answered, and the agent’s runtime serves it', async () => {
    const { siteId, command: provision } = await siteWithCommand('session-six')
    // The agent provisions the site on its runtime (files only here), as its loop would.
    const agent = agentNode(
      createNode({ dataDir: runtimeDir, httpPort: 80, httpsPort: 443, filesOnly: true, env: {} }),
      () => {},
    )
    await agent.run(provision, AbortSignal.timeout(10_000))
    await answer(provision.id)

    const domain = (provision.payload as { domain: string }).domain
    const made = await makeCertificate({ subject: `CN=${domain}`, names: [domain] })
    const certificate: SiteCertificate = {
      fingerprint: new X509Certificate(made.pem).fingerprint256.replaceAll(':', '').toLowerCase(),
      chainPem: made.pem,
      privateKeyPem: made.keyPem,
    }
    const node = await directory.find(nodeId)
    if (!node) throw new Error('no agent node')
    const installing = directory.send(
      node,
      nodeCommand('install-certificate', { siteId, certificate }),
      AbortSignal.timeout(20_000),
      { jobId: 'job_cert', attempt: 1 },
    )
    const command = await commandOf('session-six', 'install-certificate')
    expect(command).toMatchObject({
      operation: 'install-certificate',
      subject: siteId,
      jobId: 'job_cert',
      attempt: 1,
      payload: { siteId, certificate },
    })
    const keyLine = made.keyPem.split('\n')[1] ?? ''
    const queued = await commandRow(command.id)
    expect(queued).toMatchObject({ site_id: siteId, operation: 'install-certificate' })
    expect(queued.payload_sealed).not.toContain(keyLine)
    expect(queued.payload_sealed).not.toContain('PRIVATE KEY')

    await agent.run(command, AbortSignal.timeout(10_000))
    const tls = join(runtimeLayout(runtimeDir).tls, siteId)
    expect(readdirSync(tls).sort()).toEqual([
      `${certificate.fingerprint}.key`,
      `${certificate.fingerprint}.pem`,
    ])
    await answer(command.id)
    await installing
    expect((await commandRow(command.id)).payload_sealed).toBeNull()

    // The site's report now names the certificate, and the panel takes it.
    const reporting = directory.send(
      node,
      nodeCommand('report', provision.payload as SiteSpec),
      AbortSignal.timeout(20_000),
    )
    const reportCommand = await commandOf('session-six', 'report')
    const report = (await agent.run(reportCommand, AbortSignal.timeout(10_000))) as SiteReport
    expect(report).toMatchObject({ state: 'active', certificate: certificate.fingerprint })
    const answered = await tp.request('POST', `/api/v1/agent/commands/${reportCommand.id}`, {
      body: { ok: true, result: report },
      headers: { authorization: `Bearer ${agentToken}` },
    })
    expect(answered.status).toBe(200)
    expect(await reporting).toEqual(report)

    const removing = directory.send(
      node,
      nodeCommand('remove-certificate', { siteId }),
      AbortSignal.timeout(20_000),
    )
    const removal = await commandOf('session-six', 'remove-certificate')
    expect(removal).toMatchObject({ subject: siteId, payload: { siteId } })
    await agent.run(removal, AbortSignal.timeout(10_000))
    expect(existsSync(tls)).toBe(false)
    await answer(removal.id)
    await removing
  })

  test('challenges are commands on the `acme` subject; a refusal the agent calls final fails the call for good', async () => {
    const node = await directory.find(nodeId)
    if (!node) throw new Error('no agent node')
    const challenge = { token: 'tok_en-1', keyAuthorization: 'tok_en-1.thumbprint' }
    const putting = directory.send(node, nodeCommand('put-challenge', challenge), AbortSignal.timeout(20_000))
    const command = await commandOf('session-seven', 'put-challenge')
    expect(command).toMatchObject({ subject: 'acme', payload: challenge })
    const refused = await tp.request('POST', `/api/v1/agent/commands/${command.id}`, {
      body: { ok: false, error: { message: 'bad token', code: 'unsafe_challenge', final: true } },
      headers: { authorization: `Bearer ${agentToken}` },
    })
    expect(refused.status).toBe(200)
    await expect(putting).rejects.toBeInstanceOf(JobFailure)
    await expect(putting).rejects.toMatchObject({ code: 'unsafe_challenge' })

    const removing = directory.send(
      node,
      nodeCommand('remove-challenge', { token: challenge.token }),
      AbortSignal.timeout(20_000),
    )
    const removal = await commandOf('session-seven', 'remove-challenge')
    expect(removal).toMatchObject({ subject: 'acme', payload: { token: challenge.token } })
    await answer(removal.id)
    await removing
  })
})
