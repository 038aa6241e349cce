// What a site runs on the node's file system (NodeSite.run and asUser: WordPress's installer and runner with its
// plugins' code, the files' commands) has temporary space of its own: /tmp and /var/tmp are its tmp/ (on its image,
// in its quota), /dev/shm a tmpfs of its own (in its memory): not the node's, shared with every site and counted
// nowhere. Nor does it reach the node's services' Unix sockets in /run (PostgreSQL's, MariaDB's: the firewall
// closes addresses and ports, not those), while name resolution still works. The node's data directory is outside /tmp here, as on a real node (a test's under /tmp keeps the node's
// /tmp, or the site's home would be hidden beneath its own tmp/).

import { afterAll, describe, expect, test } from 'bun:test'
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { freePort } from '../../../../hosts/testing/index.ts'
import type { NodeService, NodeSite } from '../contract.ts'
import { never, processesOf, siteSpec } from '../testing/serving.ts'
import { findBinaries } from './binaries.ts'
import { createSiteRuntime } from './create-site-runtime.ts'

const binaries = findBinaries()
const usable = process.getuid?.() === 0 && binaries.nginx !== null && binaries.phpFpm !== null
const dataDir = mkdtempSync('/var/lib/plinth-run-tmp-')
const suffix = Math.random().toString(36).slice(2, 8)
const marker = `plinth-node-${suffix}`
/** A service of the node's on a Unix socket in /run, open to every user (as PostgreSQL's and MariaDB's are). */
const nodeSocket = `/run/plinth-node-${suffix}.sock`
const nodeService = Bun.listen({ unix: nodeSocket, socket: { data() {} } })
chmodSync(nodeSocket, 0o777)

const probe: NodeService = {
  name: 'probe',
  async handle(site: NodeSite, request: unknown) {
    const { how, script } = request as { how: 'run' | 'asUser'; script: string }
    if (how === 'run') return await site.run(['/bin/sh', '-c', script], {}, never())
    const child = Bun.spawn(site.asUser(['/bin/sh', '-c', script]), { stdout: 'pipe', stderr: 'pipe' })
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ])
    return { code, stdout, stderr }
  },
}
const runtime = createSiteRuntime({
  dataDir,
  httpPort: freePort(),
  httpsPort: freePort(),
  parts: () => ({ services: [probe], applications: [] }),
})
const site = siteSpec({
  id: `site_runtmp_${suffix}`,
  handle: `runtmp-${suffix}`,
  domain: `runtmp-${suffix}.example.com`,
  diskMB: 20,
})
const call = async (how: 'run' | 'asUser', script: string) =>
  (await runtime.call({ siteId: site.id, service: 'probe', request: { how, script } }, never())) as {
    code: number
    stdout: string
    stderr: string
  }

afterAll(async () => {
  await runtime.delete(site, never()).catch(() => {})
  await runtime.stop().catch(() => {})
  for (const pid of processesOf(dataDir)) process.kill(pid, 'SIGKILL')
  for (const dir of ['/tmp', '/var/tmp', '/dev/shm']) rmSync(join(dir, marker), { force: true })
  rmSync(dataDir, { recursive: true, force: true })
  nodeService.stop(true)
  rmSync(nodeSocket, { force: true })
})

describe.if(usable)('what a site runs on the node’s file system', () => {
  test('has /tmp, /var/tmp and /dev/shm of its own, its tmp/ in its quota, and no socket of the node’s in /run', async () => {
    await runtime.start()
    await runtime.provision(site, never())
    for (const dir of ['/tmp', '/var/tmp', '/dev/shm']) writeFileSync(join(dir, marker), 'the node’s')
    for (const how of ['run', 'asUser'] as const) {
      const seen = await call(how, `ls -A /tmp /var/tmp /dev/shm; echo mine > /tmp/${marker}.site`)
      expect(seen.code).toBe(0)
      expect(seen.stdout.split('\n')).not.toContain(marker)
      const filled = await call(how, 'dd if=/dev/zero of=/var/tmp/fill bs=1M count=40; rm -f /var/tmp/fill')
      expect(filled.stderr).toContain('No space left on device')
    }
    // The node's sockets in /run are not there; its resolver's configuration is.
    for (const how of ['run', 'asUser'] as const) {
      const seen = await call(how, `test -e ${nodeSocket} && echo reached; cat /etc/resolv.conf`)
      expect(seen.stdout).toBe(readFileSync('/etc/resolv.conf', 'utf8'))
    }
    // Its System V IPC is its own, and goes with it: nothing it made is left in the node's.
    for (const how of ['run', 'asUser'] as const) {
      expect((await call(how, 'ipcmk -M 4096 && ipcmk -S 1 && ipcmk -Q')).code).toBe(0)
      const uid = (await call('run', 'id -u')).stdout.trim()
      // The kernel's lists, with the owner's uid in the given column.
      const owned = Object.entries({ shm: 7, sem: 4, msg: 7 }).flatMap(([kind, column]) =>
        readFileSync(`/proc/sysvipc/${kind}`, 'utf8')
          .split('\n')
          .slice(1)
          .filter((line) => line.trim().split(/\s+/)[column] === uid),
      )
      expect(owned).toEqual([])
    }
    // In the site's tmp/, where its quota counts it.
    expect(
      (await call('run', `cat ${join(dataDir, 'sites', site.id, 'tmp', `${marker}.site`)}`)).stdout,
    ).toBe('mine\n')
  })
})
