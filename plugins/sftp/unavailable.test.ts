// SFTP accounts where no SSH server can take them: the local node without `SFTP_PORT` refuses with
// `sftp_unavailable`, and a node that does not answer with `sftp_node_unreachable`, the panel recording nothing.
// No sockets: the local node lays out files only, and the other node's driver fails every call.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { definePlugin } from '../../core/index.ts'
import { createTestPanel, expectProblem, type TestPanel, waitFor } from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { type NodeDriver, nodeDrivers } from '../nodes/contract.ts'
import { nodesPlugin } from '../nodes/index.ts'
import { sitesPlugin } from '../sites/index.ts'
import { sftpPlugin } from './index.ts'

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

const folder = mkdtempSync(join(tmpdir(), 'plinth-sftp-off-'))
let tp: TestPanel
let token: string
beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      nodesPlugin({ dataDir: folder }),
      silentNodes,
      sitesPlugin(),
      sftpPlugin(),
    ],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  token = await tp.token()
})
afterAll(async () => {
  await tp?.panel.close()
  rmSync(folder, { recursive: true, force: true })
})

const call = (method: string, path: string, body?: unknown) =>
  tp.request(method, `/api/v1${path}`, { token, ...(body === undefined ? {} : { body }) })
const json = async <T>(response: Response, status: number): Promise<T> => {
  expect(response.status).toBe(status)
  return (await response.json()) as T
}

async function activeSite(customerId: string, domain: string): Promise<string> {
  const site = await json<{ id: string }>(
    await call('POST', '/sites', { customerId, name: domain, type: 'wordpress', domain }),
    201,
  )
  await waitFor(`site ${domain}`, async () => {
    const now = await json<{ status: string }>(await call('GET', `/sites/${site.id}`), 200)
    if (now.status !== 'active') await Bun.sleep(50)
    return now.status === 'active' || null
  })
  return site.id
}

test('a node without an SSH server refuses accounts (sftp_unavailable); one that does not answer changes nothing (sftp_node_unreachable)', async () => {
  const customerId = (await json<{ id: string }>(await call('POST', '/customers', { name: 'Quiet Co' }), 201))
    .id
  const local = await activeSite(customerId, 'local.quiet.test')
  await expectProblem(await call('POST', `/sites/${local}/sftp-users`, {}), 409, 'sftp_unavailable')

  // New sites go to the silent node once the local one takes none.
  const nodes = await json<{ items: { id: string; driver: string }[] }>(await call('GET', '/nodes'), 200)
  const localNode = nodes.items.find((node) => node.driver === 'local')
  await json(await call('PATCH', `/nodes/${localNode?.id}`, { status: 'draining' }), 200)
  await json(
    await call('POST', '/nodes', { name: 'silent', driver: 'silent', hostname: 'silent.example.net' }),
    201,
  )
  const remote = await activeSite(customerId, 'remote.quiet.test')
  await expectProblem(await call('POST', `/sites/${remote}/sftp-users`, {}), 503, 'sftp_node_unreachable')
  const listed = await json<{ items: unknown[] }>(await call('GET', `/sites/${remote}/sftp-users`), 200)
  expect(listed.items).toEqual([])
})
