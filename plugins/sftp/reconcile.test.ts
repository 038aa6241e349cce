// An SFTP account reconciliation puts back on a node that lacks it, deleted while it was being put: the deletion
// removed it from the node, then reconciliation's put made it again there; a deleted account's key must not log in
// again, so the put is followed by its removal once more. Played with an agent that answers on cue.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createTestPanel,
  nodeWithPlayedAgent,
  type playAgent,
  type TestPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import type { Site } from '../sites/contract.ts'

let tp: TestPanel
let token: string
let nodeId: string
let agent: ReturnType<typeof playAgent>
/** A command the played agent is handed (as the testing kit gives it: the agent protocol is the nodes plugin's). */
type AgentCommand = Awaited<ReturnType<ReturnType<typeof playAgent>['poll']>>[number]
const keyDir = mkdtempSync(join(tmpdir(), 'plinth-sftp-reconcile-'))

beforeAll(async () => {
  tp = await createTestPanel({ jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 } })
  tp.panel.start()
  token = await tp.token()
  const played = await nodeWithPlayedAgent(tp, token)
  agent = played.agent
  nodeId = played.nodeId
  const first = await next((command) => command.operation === 'inventory')
  await agent.answer(first, null, { sites: [], strays: [], services: { sftp: { ids: [] } } })
  await jobEnded(first.jobId)
}, 60_000)
afterAll(async () => {
  await tp?.panel.close()
  rmSync(keyDir, { recursive: true, force: true })
})

/** The next command the played agent is handed that `wanted` picks. */
const next = (wanted: (command: AgentCommand) => boolean) =>
  waitFor('a command for the node', async () => (await agent.poll(undefined, 1)).find(wanted) ?? null, 20_000)

/** A call to the node's `sftp` service asking `op` of account `id`. */
const sftpCall = (op: string, id: string) => (command: AgentCommand) => {
  if (command.operation !== 'call') return false
  const { service, request } = command.payload as {
    service: string
    request: { op: string; accountId?: string; account?: { id: string } }
  }
  return service === 'sftp' && request.op === op && (request.accountId ?? request.account?.id) === id
}

const jobEnded = (id: string) =>
  waitFor('the job to end', async () => {
    const job = (await (await tp.request('GET', `/api/v1/jobs/${id}`, { token })).json()) as {
      status: string
      result: Record<string, number> | null
    }
    return job.status === 'succeeded' || job.status === 'failed' ? job : null
  })

test('an account deleted while reconciliation puts it back is removed from the node once more', async () => {
  const customer = await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Acme' } })
  const customerId = ((await customer.json()) as { id: string }).id
  const created = await tp.request('POST', '/api/v1/sites', {
    token,
    body: {
      customerId,
      name: 'Shop',
      type: 'wordpress',
      domain: `shop-${crypto.randomUUID().slice(0, 8)}.example.com`,
    },
  })
  const site = (await created.json()) as Site
  await agent.answer(await agent.command(site.id, 'provision'))
  await waitFor(
    'the site to be active',
    async () =>
      ((await (await tp.request('GET', `/api/v1/sites/${site.id}`, { token })).json()) as Site).status ===
      'active',
  )
  const key = join(keyDir, 'id_deploy')
  expect(
    Bun.spawnSync(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-C', 'deploy@test', '-f', key]).exitCode,
  ).toBe(0)
  const where = { port: 2222, hostKeyFingerprints: ['SHA256:played'] }
  const creating = tp.request('POST', `/api/v1/sites/${site.id}/sftp-users`, {
    token,
    body: { name: 'deploy', publicKeys: [readFileSync(`${key}.pub`, 'utf8').trim()] },
  })
  const made = await next((command) => command.operation === 'call')
  await agent.answer(made, null, where)
  const account = (await (await creating).json()) as { id: string }
  expect(account.id).toMatch(/^sftpu_/)

  // The node lost the account: staff's round puts it back, and the agent takes its time answering.
  const asked = await tp.request('POST', `/api/v1/nodes/${nodeId}/reconcile`, { token })
  const { jobId } = (await asked.json()) as { jobId: string }
  await agent.answer(await next((command) => command.operation === 'inventory'), null, {
    sites: [{ id: site.id, domain: site.domain, state: 'active', certificate: null, app: null }],
    strays: [],
    services: { sftp: { ids: [] } },
  })
  const put = await next(sftpCall('put', account.id))
  // Meanwhile its owner deletes it: removed from the node, then from the panel.
  const deleting = tp.request('DELETE', `/api/v1/sites/${site.id}/sftp-users/${account.id}`, { token })
  await agent.answer(await next(sftpCall('remove', account.id)), null, { sessionsEnded: 0 })
  expect((await deleting).status).toBe(204)
  // The put lands after the removal: the account is on the node again, so it is removed once more.
  await agent.answer(put, null, where)
  await agent.answer(await next(sftpCall('remove', account.id)), null, { sessionsEnded: 0 })
  expect((await jobEnded(jobId)).status).toBe('succeeded')
})
