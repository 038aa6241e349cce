// A command in a site's sandbox shares the node's network namespace (`--share-net`), and with it the node's closure
// of its own addresses to the site's user: a panel on loopback and a service on the node's every address are
// refused to it, as they are not to root.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import {
  freePort,
  networkTableOf,
  never,
  nodeWith,
  type PlinthNode,
  processesOf,
  servingDataDir,
  sh,
  siteSpec,
} from '../../../hosts/testing/index.ts'
import { defineNodeModule, type NodeSite } from '../../nodes/node/contract.ts'
import { sandboxed } from './sandbox.ts'

const suffix = Math.random().toString(36).slice(2, 8)
const dataDir = servingDataDir('plinth-sandbox-network-')
const site = siteSpec({
  id: `site_sbx_${suffix}`,
  handle: `sbx-${suffix}`,
  domain: `sbx-${suffix}.example.com`,
})
const panel = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('panel\n') })
const nodeWide = Bun.listen({ hostname: '0.0.0.0', port: 0, socket: { data: () => {} } })

/** Runs `script` with bash in the site's sandbox, as the shell service runs a command. */
async function inSandbox(nodeSite: NodeSite, script: string): Promise<{ code: number; stderr: string }> {
  const run = sandboxed(nodeSite, ['bash', '-c', script], { cwd: '/htdocs', newSession: true })
  try {
    const child = Bun.spawn(run.argv, { stdout: 'ignore', stderr: 'pipe' })
    const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited])
    return { code, stderr }
  } finally {
    run.release()
  }
}

const probe = defineNodeModule({
  name: 'sandbox-probe',
  source: import.meta.url,
  create: () => ({
    services: [
      {
        name: 'sandbox-probe',
        handle: (nodeSite, request) => inSandbox(nodeSite, request as string),
      },
    ],
  }),
})

let node: PlinthNode | null = null

beforeAll(async () => {
  node = await nodeWith([probe], { dataDir, httpPort: freePort(), httpsPort: freePort() })
  await node.runtime.start()
  await node.runtime.provision(site, never())
})

afterAll(async () => {
  await node?.runtime.delete(site, never()).catch(() => {})
  await node?.runtime.stop().catch(() => {})
  sh(['nft', 'delete', 'table', 'inet', networkTableOf(dataDir)])
  for (const pid of processesOf(dataDir)) process.kill(pid, 'SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
  panel.stop(true)
  nodeWide.stop(true)
})

describe('a site’s sandbox', () => {
  test('is refused the panel on loopback and the node’s every address, which root reaches', async () => {
    const targets = [`127.0.0.1/${panel.port}`, `127.0.0.2/${nodeWide.port}`]
    for (const target of targets) {
      const answer = (await node?.runtime.call(
        { siteId: site.id, service: 'sandbox-probe', request: `exec 3<>/dev/tcp/${target}` },
        never(),
      )) as { code: number; stderr: string }
      expect({ target, ...answer }).toMatchObject({
        target,
        code: 1,
        stderr: expect.stringContaining('Connection refused'),
      })
      expect(sh(['bash', '-c', `exec 3<>/dev/tcp/${target}`]).code).toBe(0)
    }
  })
})
