// `npm run bench:webhooks`: how long an event takes from its commit to a receiver, on the standalone server with a
// real receiver on loopback: `POST /api/v1/customers` (whose transaction writes `customer.created`) answering 201,
// to the signed delivery arriving. Events one after another, then a burst from 16 clients at once, then the same
// burst with no endpoint (the changes' own cost), each with the server's CPU per event. No pass/fail: the figures
// go into docs/performance.md. `WEBHOOK_EVENTS` (1000) per run.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhook as StandardWebhook } from 'standardwebhooks'
import { processCpuMicros } from './cpu.ts'
import { staffToken, startServer, summary } from './standalone.ts'

const count = Number(process.env.WEBHOOK_EVENTS ?? '1000')
const clients = 16

/** When each customer's 201 arrived and when its delivery did (Date.now(): one clock, one machine). */
const committedAt = new Map<string, number>()
const deliveredAt = new Map<string, number>()
/** The event's own timestamp (written in the transaction, just before commit) per customer. */
const occurredAt = new Map<string, number>()
let verifier: StandardWebhook | null = null
let invalid = 0
const arrivals = new Set<() => void>()

const receiver = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    const body = await request.text()
    const now = Date.now()
    try {
      verifier?.verify(body, Object.fromEntries(request.headers))
    } catch {
      invalid += 1
    }
    const event = JSON.parse(body) as { type: string; timestamp: string; data: { id: string } }
    if (event.type === 'customer.created' && !deliveredAt.has(event.data.id)) {
      deliveredAt.set(event.data.id, now)
      occurredAt.set(event.data.id, Date.parse(event.timestamp))
      for (const wake of arrivals) wake()
    }
    return new Response(null, { status: 204 })
  },
})

/** Resolves once the delivery for `customerId` has arrived. */
function delivered(customerId: string): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!deliveredAt.has(customerId)) return
      arrivals.delete(check)
      resolve()
    }
    arrivals.add(check)
    check()
  })
}

const dataDir = mkdtempSync(join(tmpdir(), 'plinth-webhooks-'))
const env = {
  DATA_DIR: dataDir,
  PORT: '0',
  RATE_LIMIT_PER_MINUTE: '1000000000',
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
}
const server = await startServer(env)
try {
  const token = await staffToken(env)
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  const endpoint = await fetch(`${server.url}/api/v1/webhooks`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ url: `http://127.0.0.1:${receiver.port}/hooks`, events: ['customer.created'] }),
  })
  if (endpoint.status !== 201)
    throw new Error(`creating the endpoint: ${endpoint.status} ${await endpoint.text()}`)
  const created = (await endpoint.json()) as { id: string; secret: string }
  const endpointId = created.id
  verifier = new StandardWebhook(created.secret)

  let serial = 0
  /** Creates a customer; its 201 means the transaction with the event has committed. */
  const createCustomer = async (): Promise<string> => {
    const response = await fetch(`${server.url}/api/v1/customers`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: `Bench ${++serial}` }),
    })
    const at = Date.now()
    if (response.status !== 201)
      throw new Error(`POST /customers: ${response.status} ${await response.text()}`)
    const { id } = (await response.json()) as { id: string }
    committedAt.set(id, at)
    return id
  }
  const latencies = (ids: readonly string[]) => ({
    fromCommit: ids.map((id) => (deliveredAt.get(id) ?? Number.NaN) - (committedAt.get(id) ?? Number.NaN)),
    fromEvent: ids.map((id) => (deliveredAt.get(id) ?? Number.NaN) - (occurredAt.get(id) ?? Number.NaN)),
  })

  const pid = server.process.pid
  // One after another: each event is delivered before the next change is made.
  const sequential: string[] = []
  const sequentialCpuFrom = await processCpuMicros(pid)
  for (let i = 0; i < count; i++) {
    const id = await createCustomer()
    await delivered(id)
    sequential.push(id)
  }
  const sequentialCpu = (await processCpuMicros(pid)) - sequentialCpuFrom

  /** 16 clients make `count` changes as fast as they can; answers their ids. */
  const burstOfChanges = async (): Promise<string[]> => {
    const ids: string[] = []
    let taken = 0
    await Promise.all(
      Array.from({ length: clients }, async () => {
        // Each client takes a number before it waits, so exactly `count` changes are made.
        while (taken++ < count) ids.push(await createCustomer())
      }),
    )
    return ids
  }

  // A burst: every event is measured on its own.
  const burstCpuFrom = await processCpuMicros(pid)
  const started = performance.now()
  const burst = await burstOfChanges()
  await Promise.all(burst.map(delivered))
  const burstSeconds = (performance.now() - started) / 1000
  const burstCpu = (await processCpuMicros(pid)) - burstCpuFrom

  // The same burst with the endpoint deleted: what the changes cost without webhooks, so the difference is the
  // delivery's share (fan-out, claims, the POST, the records).
  const deleted = await fetch(`${server.url}/api/v1/webhooks/${endpointId}`, { method: 'DELETE', headers })
  if (deleted.status !== 204)
    throw new Error(`deleting the endpoint: ${deleted.status} ${await deleted.text()}`)
  const quietCpuFrom = await processCpuMicros(pid)
  const quiet = await burstOfChanges()
  const quietCpu = (await processCpuMicros(pid)) - quietCpuFrom

  console.log(`standalone server over HTTP, a receiver on loopback, ${count} events per run\n`)
  for (const [name, ids, cpu] of [
    ['one after another', sequential, sequentialCpu],
    [`burst from ${clients} clients`, burst, burstCpu],
  ] as const) {
    const { fromCommit, fromEvent } = latencies(ids)
    console.log(`${name}:`)
    console.log(summary('  201 (committed) to delivered', fromCommit))
    console.log(summary('  event timestamp to delivered', fromEvent))
    // The server's CPU (every thread), the creating request included, per event made and delivered.
    console.log(`  server CPU per event (request + delivery)  ${(cpu / ids.length).toFixed(0)} µs`)
  }
  console.log(
    `\nburst: ${burst.length} events made and delivered in ${burstSeconds.toFixed(2)} s (${(burst.length / burstSeconds).toFixed(0)} events/s)`,
  )
  console.log(
    `the same burst with no endpoint: server CPU per event ${(quietCpu / quiet.length).toFixed(0)} µs, so delivery's share about ${((burstCpu - quietCpu) / burst.length).toFixed(0)} µs an event`,
  )
  console.log(`signatures refused by the standardwebhooks library: ${invalid}`)
} finally {
  server.process.kill('SIGTERM')
  await server.process.exited
  receiver.stop(true)
  rmSync(dataDir, { recursive: true, force: true })
}
