// The local node says again what it runs while the panel runs, as an agent does: a service's state that changes
// without its readiness (the node's own MariaDB stopped and unable to start again, its port taken) reaches
// `GET /nodes`, and placement, rather than the start's report being read for ever.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { definePlugin } from '../../core/index.ts'
import { createTestPanel, type TestPanel, temporaryDataDir, waitFor } from '../../hosts/testing/index.ts'
import { nodeModules } from './contract.ts'
import { nodesPlugin } from './index.ts'
import { defineNodeModule } from './node/contract.ts'

/** What the test's service says of itself: changed by the test while the panel runs. */
const state = { running: true }

const probeModule = defineNodeModule({
  name: 'probe',
  source: import.meta.url,
  create: () => ({
    services: [
      {
        name: 'probe',
        handle: async () => ({}),
        describe: async () => ({ running: state.running }),
      },
    ],
  }),
})

const probePlugin = definePlugin({
  name: 'probe',
  version: '1.0.0',
  description: 'A node module whose service the test stops.',
  requires: ['nodes'],
  setup(context) {
    context.extensionPoint(nodeModules).add({ module: probeModule })
  },
})

let tp: TestPanel
let token: string

beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [nodesPlugin({ dataDir: temporaryDataDir(), localReportIntervalMs: 50 }), probePlugin],
  })
  tp.panel.start()
  token = await tp.token()
})
afterAll(() => tp.panel.close())

/** The local node's service as `GET /nodes` says it, and when the node was last seen. */
async function probed() {
  const nodes = (await (await tp.request('GET', '/api/v1/nodes', { token })).json()) as {
    items: {
      agent: { lastSeenAt: string | null; capabilities: { services: Record<string, unknown> } | null }
    }[]
  }
  const local = nodes.items[0]
  return { service: local?.agent.capabilities?.services.probe, seen: local?.agent.lastSeenAt ?? null }
}

test('a service that stops after the start is said stopped, and the node seen again, without a restart', async () => {
  const first = await waitFor('the first report', async () => {
    const now = await probed()
    return now.service ? now : null
  })
  expect(first.service).toEqual({ running: true })
  state.running = false
  const after = await waitFor('the stopped service reported', async () => {
    const now = await probed()
    if ((now.service as { running?: boolean } | undefined)?.running === false) return now
    await Bun.sleep(20)
    return null
  })
  expect(Date.parse(after.seen ?? '')).toBeGreaterThan(Date.parse(first.seen ?? ''))
})
