// A node whose sites' port another program holds (Debian's own nginx, here a plain listener) is not ready and says
// why, with the port; its watch tries again on its own, and it serves once the port is free, telling each change.
// With this machine's nginx and PHP-FPM.

import { afterAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { freePort } from '../../../hosts/testing/index.ts'
import type { NodeReadiness } from './contract.ts'
import { keepServing } from './keep-serving.ts'
import { createSiteRuntime } from './runtime/create-site-runtime.ts'
import { runtimeLayout } from './runtime/layout.ts'
import { pidIn, processesOf, request, servingDataDir } from './testing/serving.ts'

const dataDir = servingDataDir('plinth-keep-serving-')
const port = freePort()
const runtime = createSiteRuntime({ dataDir, httpPort: port, httpsPort: freePort() })
// Another program on the sites' port, as Debian's nginx would be after `apt-get install nginx`.
const squatter = Bun.listen({ hostname: '0.0.0.0', port, socket: { data() {} } })
const told: { readiness: NodeReadiness; previous: NodeReadiness | null }[] = []
// The runtime's watch starts the masters again (as a node runs it while it serves).
let unwatch = runtime.watch(() => {})
const kept = keepServing(runtime, {
  everyMs: 200,
  changed: (readiness, previous) => {
    told.push({ readiness, previous })
  },
})

/** Waits until the node told it is ready (its watch starts the masters again) and reads so itself. */
async function untilReady(ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(told.at(-1)?.readiness.ready && (await runtime.readiness()).ready)) {
    if (Date.now() > deadline) throw new Error('the node did not become ready')
    await Bun.sleep(50)
  }
}

afterAll(async () => {
  squatter.stop(true)
  unwatch()
  await kept.stop()
  await runtime.stop().catch(() => {})
  for (const pid of processesOf(dataDir)) process.kill(pid, 'SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
})

describe('a node whose sites’ port is taken', () => {
  test('is not ready, saying the port is taken, in its readiness and its capabilities', async () => {
    const first = await kept.first
    expect(first.ready).toBe(false)
    expect(first.reasons).toEqual([
      { code: 'port_taken', message: expect.stringContaining(`port ${port} is taken by another program`) },
    ])
    expect(told[0]).toEqual({ readiness: first, previous: null })
    expect((await runtime.capabilities()).readiness).toEqual(first)
    // Read again every 200 ms, and told once: nothing changed.
    await Bun.sleep(700)
    expect(told).toHaveLength(1)
  })

  test('serves once the port is free, without a restart, and tells the change', async () => {
    squatter.stop(true)
    await untilReady()
    const last = told.at(-1)
    expect(last?.readiness).toEqual({ ready: true, reasons: [] })
    expect(last?.previous?.reasons[0]?.code).toBe('port_taken')
    // Its nginx answers on the port now (no site: the default server's refusal).
    expect((await request(port, 'nothing.example.test')).status).toBeGreaterThanOrEqual(400)
  })

  test('a master killed makes it not ready (not_running) until its watch started it again', async () => {
    // Unwatched while it is killed, so the node is seen without it before the watch brings it back.
    unwatch()
    const pid = pidIn(runtimeLayout(dataDir).nginx.pid)
    expect(pid).not.toBeNull()
    process.kill(pid ?? 0, 'SIGKILL')
    const deadline = Date.now() + 5_000
    while (!told.at(-1)?.readiness.reasons.some((reason) => reason.code === 'not_running')) {
      if (Date.now() > deadline) throw new Error('the node never said its nginx was not running')
      await Bun.sleep(50)
    }
    unwatch = runtime.watch(() => {})
    await untilReady()
  })
})

describe('a node that lays out files only, by its operator’s choice', () => {
  test('is ready with nothing running', async () => {
    const filesDir = servingDataDir('plinth-keep-files-')
    try {
      const files = createSiteRuntime({ dataDir: filesDir, httpPort: port, httpsPort: port, filesOnly: true })
      expect(await files.readiness()).toEqual({ ready: true, reasons: [] })
      expect((await files.capabilities()).readiness).toEqual({ ready: true, reasons: [] })
    } finally {
      rmSync(filesDir, { recursive: true, force: true })
    }
  })
})
