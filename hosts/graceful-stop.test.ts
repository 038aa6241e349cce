// Stopping the real server, black-box: a second signal during the stop (systemd signals npm and bun alike) never
// kills it, and the provisioning jobs and event streams under way never hold the stop: the jobs are given back at
// once (the next start resumes them, long before their lease would have run out), the streams end, and it exits 0.

import { afterAll, describe, expect, test } from 'bun:test'
import { spawn } from 'node:child_process'
import { Readable } from 'node:stream'
import type { Node } from '../plugins/nodes/contract.ts'
import type { Site } from '../plugins/sites/contract.ts'
import {
  apiClient,
  cliStaffToken,
  createProcessTracker,
  hostEnv,
  repoRoot,
  type Standalone,
  transcript,
} from './testing/host-process.ts'
import { installationRows } from './testing/installation-rows.ts'
import { startSlowPost } from './testing/slow-post.ts'

const { tempDataDir, runCli, startStandalone, cleanup } = createProcessTracker('plinth-stop-')
afterAll(cleanup)

/** What the server's own stop may take at most before it closes connections by force (hosts/bun/run-server.ts). */
const forceCloseAfterMs = 10_000

/** The `stopMs` of the server's last line, which it writes only once it has stopped of itself. */
async function stopMsOf(server: Pick<Standalone, 'stdout'>): Promise<number> {
  await server.stdout.done
  const [, stopMs = ''] = /"stopMs":(\d+),"msg":"Plinth panel stopped"/.exec(server.stdout.text) ?? []
  expect(stopMs).not.toBe('')
  return Number(stopMs)
}

describe('a second signal during the stop', () => {
  test('npm start signalled as systemd does, the whole group at once, finishes its request and exits 0', async () => {
    const dataDir = tempDataDir()
    // npm in a process group of its own, as a service's: npm passes the signal it gets on to bun, which got one too.
    const npm = spawn('npm', ['start'], {
      cwd: repoRoot,
      env: hostEnv(dataDir, { PORT: '0' }) as NodeJS.ProcessEnv,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      npm.once('exit', (code, signal) => resolve({ code, signal })),
    )
    try {
      const stdout = transcript(Readable.toWeb(npm.stdout) as unknown as ReadableStream<Uint8Array>)
      const [, url = ''] = await stdout.waitFor(/Plinth panel listening on (http:\/\/\S+)/)
      const token = await cliStaffToken(runCli, dataDir)
      const request = await startSlowPost(url, '/api/v1/customers', token, JSON.stringify({ name: 'Acme' }))
      expect(await request.interim).toBe(100)
      process.kill(-(npm.pid ?? 0), 'SIGTERM')
      await stdout.waitFor(/SIGTERM received: finishing in-flight requests/)
      // bun's own and npm's arrive together and may merge into one (signals are not queued): the group is signalled
      // again during the stop, as systemd's final round or an impatient operator would.
      process.kill(-(npm.pid ?? 0), 'SIGTERM')
      await stdout.waitFor(/SIGTERM received again: already stopping/)
      // The request in flight is still answered: the second signal did not end the process.
      expect((await request.finish()).status).toBe(201)
      expect(await exited).toEqual({ code: 0, signal: null })
      expect(await stopMsOf({ stdout })).toBeGreaterThanOrEqual(0)
    } finally {
      if (npm.exitCode === null) process.kill(-(npm.pid ?? 0), 'SIGKILL')
    }
  }, 60_000)
})

/** The slow-node host with provisioning held before the node's files (until the job is asked to stop). */
function startHeld(dataDir: string, hold: boolean): Promise<Standalone> {
  return startStandalone(
    dataDir,
    { SLOW_NODE_PAUSE_MS: '20', SLOW_NODE_HOLD: hold ? 'before-files' : '' },
    'hosts/testing/slow-node-host.ts',
  )
}

describe('a stop with provisioning jobs under way', () => {
  test('gives the jobs back and ends the event streams at once, exits 0, and the next start resumes the jobs', async () => {
    const dataDir = tempDataDir()
    const server = await startHeld(dataDir, true)
    const token = await cliStaffToken(runCli, dataDir)
    const call = apiClient(server, token)
    const nodes = await call<{ items: Node[] }>('GET', '/nodes')
    const local = nodes.body.items.find((node) => node.name === 'local')
    expect((await call('PATCH', `/nodes/${local?.id}`, { status: 'draining' })).status).toBe(200)
    expect(
      (await call('POST', '/nodes', { name: 'slow-1', driver: 'slow', hostname: 'localhost' })).status,
    ).toBe(201)
    const customer = await call<{ id: string }>('POST', '/customers', { name: 'Acme' })
    const sites: Site[] = []
    for (const name of ['one', 'two', 'three']) {
      const site = await call<Site>('POST', '/sites', {
        customerId: customer.body.id,
        name,
        type: 'plain',
        domain: `${name}.example.com`,
      })
      expect(site.status).toBe(201)
      sites.push(site.body)
    }
    for (const site of sites) await server.stdout.waitFor(new RegExp(`holding ${site.id} at before-files`))
    // A client following a job, as the console does while a site provisions: a stream that could stay open an hour.
    const following = await fetch(`${server.url}/api/v1/jobs/${sites[0]?.jobId}/events`, {
      headers: { authorization: `Bearer ${token}` },
    })
    const events = (following.body as ReadableStream<Uint8Array>).getReader()
    const decoder = new TextDecoder()
    let streamed = ''
    while (!streamed.includes('event: progress')) streamed += decoder.decode((await events.read()).value)

    server.process.kill('SIGTERM')
    // The stream ends cleanly between two events (EventSource reconnects), not cut off by a closed connection.
    for (let next = await events.read(); !next.done; next = await events.read())
      streamed += decoder.decode(next.value)
    expect(streamed.endsWith('\n\n')).toBe(true)
    expect(await server.process.exited).toBe(0)
    // Stopped of itself, well before it would have closed connections by force: nothing waited on a job or a stream.
    expect(await stopMsOf(server)).toBeLessThan(forceCloseAfterMs)

    // Given back, not left leased: still running, with a lease long lapsed, for whoever starts next.
    const jobs = await installationRows<{ status: string; lease_until: string | null }>(
      dataDir,
      `SELECT status, lease_until FROM jobs WHERE id IN (${sites.map(() => '?').join(', ')})`,
      sites.map((site) => site.jobId ?? ''),
    )
    expect(jobs).toHaveLength(3)
    for (const job of jobs) {
      expect(job.status).toBe('running')
      expect(Date.parse(job.lease_until ?? '')).toBeLessThan(Date.now() - 60_000)
    }

    // The next start takes them up at once (their 30 s lease would still hold them otherwise) and finishes them.
    const restarted = await startHeld(dataDir, false)
    const again = apiClient(restarted, token)
    const deadline = Date.now() + 20_000
    for (const site of sites) {
      for (;;) {
        const read = await again<Site>('GET', `/sites/${site.id}`)
        if (read.body.status === 'active') break
        expect(Date.now()).toBeLessThan(deadline)
        await Bun.sleep(100)
      }
    }
    restarted.process.kill('SIGTERM')
    expect(await restarted.process.exited).toBe(0)
  }, 90_000)
})
