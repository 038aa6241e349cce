// A site's commands and shells run in its group: an exec job's program and an interactive shell, each in its
// bubblewrap sandbox as the site's user, are in the site's cgroup (read from outside the sandbox, whose cgroup
// namespace shows its own root), and they end when the site is suspended.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chmodSync } from 'node:fs'
import {
  cgroupOf,
  eventually,
  freePort,
  never,
  nodeWith,
  type PlinthNode,
  processesOfUid,
  processesRunning,
  removeNodeLeftovers,
  servingDataDir,
  sh,
  siteGroupPath,
  sitePaths,
  siteSpec,
} from '../../../hosts/testing/index.ts'
import shellNodeModule from './index.ts'

const dataDir = servingDataDir('plinth-shell-group-')
chmodSync(dataDir, 0o711)
const suffix = Math.random().toString(36).slice(2, 8)
const site = siteSpec({
  id: `site_shell_${suffix}`,
  handle: `shell-${suffix}`,
  domain: `shell-${suffix}.example.com`,
  processes: 64,
})
let node: PlinthNode
const root = process.getuid?.() === 0
const bwrap = Bun.which('bwrap') !== null

const call = (request: unknown) =>
  node.run({ operation: 'call', payload: { siteId: site.id, service: 'shell', request } }, never())
const uid = () => Number(sh(['getent', 'passwd', sitePaths(dataDir, site).user]).stdout.split(':')[2])

beforeAll(async () => {
  node = await nodeWith([shellNodeModule], { dataDir, httpPort: freePort(), httpsPort: freePort() })
})
afterAll(async () => {
  await node.runtime.delete(site, never()).catch(() => {})
  await node.runtime.stop().catch(() => {})
  removeNodeLeftovers(dataDir)
})

describe.skipIf(!root || !bwrap)('a site’s commands and shells in its group', () => {
  test('an exec job’s program and an interactive shell run in the site’s cgroup as its user, and end with its suspension', async () => {
    const capabilities = await node.capabilities()
    if (capabilities.mode !== 'serving') return
    await node.run({ operation: 'provision', payload: site }, never())
    const path = siteGroupPath(dataDir, site.id)
    await call({
      op: 'exec.start',
      argv: ['sleep', '41.5'],
      cwd: '/htdocs',
      timeoutMs: 60_000,
      outputCapBytes: 1024,
    })
    await eventually('the exec job’s sleep', () => processesRunning(uid(), 'sleep 41.5').length > 0)
    const [job] = processesRunning(uid(), 'sleep 41.5')
    expect(cgroupOf(job ?? 0)).toMatch(new RegExp(`:${path}$`, 'm'))

    const { shellId } = (await call({ op: 'shell.open', cols: 80, rows: 24 })) as { shellId: string }
    await call({ op: 'shell.write', shellId, input: Buffer.from('exec sleep 42.5\n').toString('base64') })
    await eventually('the shell’s sleep', () => processesRunning(uid(), 'sleep 42.5').length > 0)
    const [shell] = processesRunning(uid(), 'sleep 42.5')
    expect(cgroupOf(shell ?? 0)).toMatch(new RegExp(`:${path}$`, 'm'))
    // No process of the site's user is outside its group (its PHP pool's workers are the PHP-FPM master's).
    for (const pid of processesOfUid(uid())) {
      const groups = cgroupOf(pid)
      if (groups && !/php-fpm/.test(sh(['cat', `/proc/${pid}/comm`]).stdout)) expect(groups).toContain(path)
    }

    await node.run({ operation: 'suspend', payload: site }, never())
    expect(processesRunning(uid(), 'sleep 41.5')).toEqual([])
    expect(processesRunning(uid(), 'sleep 42.5')).toEqual([])
  }, 30_000)
})
