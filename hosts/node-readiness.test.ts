// The panel started (`npm start`'s entry point) with its local node's sites' port taken by another program, as
// Debian's own nginx takes port 80 after `apt-get install nginx`: the log says the local node is not ready and why,
// `/readyz` answers degraded naming it, `GET /nodes` says `ready: false` with `port_taken`, and a new site is refused
// at once (nothing kept). Once the port is free, the node serves without a restart of the panel. With this machine's
// nginx and PHP-FPM.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Node } from '../plugins/nodes/contract.ts'
import {
  apiClient,
  cliStaffToken,
  createProcessTracker,
  freePort,
  removeNodeLeftovers,
  type Standalone,
  waitFor,
} from './testing/index.ts'

const { tempDataDir, runCli, startStandalone, cleanup } = createProcessTracker('plinth-readiness-')
const sitesDir = tempDataDir()
afterAll(async () => {
  await cleanup()
  removeNodeLeftovers(sitesDir)
})

const port = freePort()
// The other program on the sites' port.
const squatter = Bun.listen({ hostname: '0.0.0.0', port, socket: { data() {} } })
afterAll(() => squatter.stop(true))

let panel: Standalone
let call: ReturnType<typeof apiClient>
let customerId: string

interface Readiness {
  readonly status: string
  readonly checks: { name: string; ready: boolean; reasons: { code: string; message: string }[] }[]
}
const readyz = async () => {
  const response = await fetch(new URL('/readyz', panel.url))
  return { status: response.status, body: (await response.json()) as Readiness }
}
const localNode = async () => {
  const nodes = await call<{ items: Node[] }>('GET', '/nodes')
  const local = nodes.body.items.find((node) => node.driver === 'local')
  if (!local) throw new Error('no local node')
  return local
}

beforeAll(async () => {
  const dataDir = tempDataDir()
  panel = await startStandalone(dataDir, {
    LOCAL_SITES: 'serve',
    SITES_DATA_DIR: sitesDir,
    SITES_HTTP_PORT: String(port),
    SITES_HTTPS_PORT: String(freePort()),
  })
  call = apiClient(panel, await cliStaffToken(runCli, dataDir))
  customerId = (await call<{ id: string }>('POST', '/customers', { name: 'Acme' })).body.id
})

describe('the local node with its sites’ port taken by another program', () => {
  test('the panel logs that the local node is not ready, naming the port', async () => {
    const line = await Promise.race([
      panel.stdout.waitFor(/.*the local node is not ready to serve sites: port (\d+) is taken.*/),
      panel.stderr.waitFor(/.*the local node is not ready to serve sites: port (\d+) is taken.*/),
    ])
    expect(line[1]).toBe(String(port))
    expect(line[0]).toContain('port_taken')
  })

  test('/readyz answers 200 degraded, the local node’s check not ready with port_taken', async () => {
    const { status, body } = await readyz()
    expect(status).toBe(200)
    expect(body.status).toBe('degraded')
    const local = body.checks.find((check) => check.name === 'nodes.local-node')
    expect(local?.ready).toBe(false)
    expect(local?.reasons.map((reason) => reason.code)).toEqual(['port_taken'])
    expect(local?.reasons[0]?.message).toContain(`port ${port} is taken by another program`)
  })

  test('GET /nodes says the local node is not ready, with the reason', async () => {
    const local = await localNode()
    expect(local.ready).toBe(false)
    expect(local.notReady).toEqual([
      { code: 'port_taken', message: expect.stringContaining(`port ${port} is taken`) },
    ])
  })

  test('a new site is refused at once with no_node_ready naming the node and why; nothing is kept', async () => {
    const refused = await call<{ code: string; detail: string; nodes: { notReady: { code: string }[] }[] }>(
      'POST',
      '/sites',
      { customerId, name: 'Blog', type: 'wordpress', domain: 'blog.example.test' },
    )
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe('no_node_ready')
    expect(refused.body.detail).toContain(`port ${port} is taken`)
    expect(refused.body.nodes[0]?.notReady[0]?.code).toBe('port_taken')
    expect((await call<{ items: unknown[] }>('GET', '/sites')).body.items).toEqual([])
  })

  test('once the port is free, the node serves without a restart of the panel: ready, and /readyz ok', async () => {
    squatter.stop(true)
    await waitFor(
      'the local node to become ready',
      async () => {
        const node = await localNode()
        if (node.ready) return node
        await Bun.sleep(250)
        return null
      },
      30_000,
    )
    const { body } = await readyz()
    expect(body.status).toBe('ok')
    // Its own nginx answers on the port now.
    expect(
      (await fetch(`http://127.0.0.1:${port}/`, { headers: { host: 'none.example.test' } })).status,
    ).toBe(404)
  })
})
