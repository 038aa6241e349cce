// Two real server processes on one PostgreSQL database behave as one panel: a provisioning job of an instance killed
// with SIGKILL is finished by the other, Idempotency-Keys sent to both create each resource once, two instances
// racing for a customer's last site slot let exactly one through, and every event reaches a webhook receiver once.

import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Node } from '../plugins/nodes/contract.ts'
import type { Site } from '../plugins/sites/contract.ts'
import {
  apiClient,
  cliStaffToken,
  createProcessTracker,
  killHard,
  postgresSettingsFor,
  type Standalone,
} from './testing/host-process.ts'
import { installationRows as rowsOn } from './testing/installation-rows.ts'

const { tempDataDir, runCli, startStandalone, cleanup } = createProcessTracker('plinth-instances-')
const receivers: { stop(): void }[] = []
afterAll(async () => {
  for (const receiver of receivers) receiver.stop()
  await cleanup()
})

const slowHost = 'hosts/testing/slow-node-host.ts'

/** Rows of the installation's PostgreSQL schema, whichever engine the rest of this run tests. */
const installationRows = <Row>(dataDir: string, query: string, parameters: (string | number)[] = []) =>
  rowsOn<Row>(dataDir, query, parameters, postgresSettingsFor(dataDir))
const leaseMs = 2_000

/** Polls `read` until it answers something, for up to `ms`. */
async function eventually<T>(what: string, read: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await read()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`)
    await Bun.sleep(100)
  }
}

/** A webhook receiver on 127.0.0.1 that answers 200 and counts each `webhook-id` it was sent. */
function startReceiver() {
  const received = new Map<string, number>()
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      await request.text()
      const id = request.headers.get('webhook-id') ?? 'none'
      received.set(id, (received.get(id) ?? 0) + 1)
      return new Response(null, { status: 204 })
    },
  })
  receivers.push(server)
  return { url: `http://127.0.0.1:${server.port}/hooks`, received }
}

describe('two instances on one PostgreSQL database', () => {
  test('behave as one panel: takeover after SIGKILL, idempotent creates, the last slot, each event delivered once', async () => {
    // Both instances share DATA_DIR (its secret.key, and the slow node's files) and the database.
    const dataDir = tempDataDir()
    const settings = {
      ...postgresSettingsFor(dataDir),
      JOB_LEASE_MS: String(leaseMs),
      SLOW_NODE_PAUSE_MS: '20',
      DEFAULT_CUSTOMER_LIMITS: 'sites=3',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      LOG_REQUESTS: '0',
    }
    const start = (hold = '') => startStandalone(dataDir, { ...settings, SLOW_NODE_HOLD: hold }, slowHost)

    // 1. Instance A holds the provisioning of a site; B starts; A is killed; B finishes the job once.
    let a: Standalone = await start('before-files')
    // The CLI on the same database, whichever engine the rest of this run tests.
    const token = await cliStaffToken(
      (dir, args, extra) => runCli(dir, args, { ...postgresSettingsFor(dir), ...extra }),
      dataDir,
    )
    const viaA = apiClient(a, token)
    const nodes = await viaA<{ items: Node[] }>('GET', '/nodes')
    const local = nodes.body.items.find((node) => node.name === 'local')
    expect((await viaA('PATCH', `/nodes/${local?.id}`, { status: 'draining' })).status).toBe(200)
    const slow = await viaA<Node>('POST', '/nodes', { name: 'slow-1', driver: 'slow', hostname: 'localhost' })
    expect(slow.status).toBe(201)
    const first = await viaA<{ id: string }>('POST', '/customers', { name: 'First' })
    const held = await viaA<Site>('POST', '/sites', {
      customerId: first.body.id,
      name: 'Held',
      type: 'plain',
      domain: 'held.example.com',
    })
    expect(held.status).toBe(201)
    await a.stdout.waitFor(new RegExp(`holding ${held.body.id} at before-files`))
    const b = await start()
    const viaB = apiClient(b, token)
    await killHard(a)
    expect(existsSync(join(dataDir, 'sites', held.body.id))).toBe(false)
    const finished = await eventually('B to finish the dead instance’s job', async () => {
      const job = await viaB<{ status: string; attempts: number }>('GET', `/jobs/${held.body.jobId}`)
      return job.body.status === 'succeeded' ? job.body : undefined
    })
    expect(finished.attempts).toBe(2)
    expect((await viaB<Site>('GET', `/sites/${held.body.id}`)).body.status).toBe('active')
    expect(existsSync(join(dataDir, 'sites', held.body.id, 'state.json'))).toBe(true)

    // 2. A starts again (no hold); a receiver subscribes to every event.
    a = await start()
    const viaAgain = apiClient(a, token)
    const receiver = startReceiver()
    const since = new Date().toISOString()
    const endpoint = await viaB<{ id: string }>('POST', '/webhooks', { url: receiver.url, events: ['*'] })
    expect(endpoint.status).toBe(201)

    // 3. 100 keys, each sent to both instances at once: 200 requests, 100 customers.
    const clients = [a, b]
    const createWithKey = (server: Standalone, key: string) =>
      fetch(`${server.url}/api/v1/customers`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: JSON.stringify({ name: `Customer ${key}` }),
      })
    const keys = Array.from({ length: 100 }, (_, index) => `instances-${index}-${crypto.randomUUID()}`)
    const outcomes: { key: string; status: number; id?: string; code?: string; replayed: boolean }[] = []
    for (let batch = 0; batch < keys.length; batch += 10) {
      const answers = await Promise.all(
        keys
          .slice(batch, batch + 10)
          .flatMap((key) =>
            clients.map(async (server) => ({ key, response: await createWithKey(server, key) })),
          ),
      )
      for (const { key, response } of answers) {
        const body = (await response.json()) as { id?: string; code?: string }
        outcomes.push({
          key,
          status: response.status,
          ...(body.id ? { id: body.id } : {}),
          ...(body.code ? { code: body.code } : {}),
          replayed: response.headers.get('idempotent-replayed') === 'true',
        })
      }
    }
    for (const key of keys) {
      const pair = outcomes.filter((outcome) => outcome.key === key)
      const created = pair.filter((outcome) => outcome.status === 201)
      // Both answered with the one customer (one of them a replay), or one waited for the other: in flight.
      expect(created.length).toBeGreaterThanOrEqual(1)
      expect(new Set(created.map((outcome) => outcome.id)).size).toBe(1)
      for (const other of pair.filter((outcome) => outcome.status !== 201))
        expect(other).toMatchObject({ status: 409, code: 'idempotency_request_in_flight' })
      if (created.length === 2) expect(created.filter((outcome) => outcome.replayed)).toHaveLength(1)
    }
    const stored = await installationRows<{ n: number }>(
      dataDir,
      "SELECT count(*) AS n FROM customers WHERE name LIKE 'Customer instances-%'",
    )
    expect(Number(stored[0]?.n)).toBe(100)

    // 4. A customer with two of its three sites; ten creates race for the last slot across both instances.
    const racer = await viaB<{ id: string }>('POST', '/customers', { name: 'Racer' })
    for (const name of ['one', 'two'])
      expect(
        (
          await viaAgain('POST', '/sites', {
            customerId: racer.body.id,
            name,
            type: 'plain',
            domain: `${name}.racer.example.com`,
          })
        ).status,
      ).toBe(201)
    const race = await Promise.all(
      Array.from({ length: 10 }, async (_, index) => {
        const call = apiClient(clients[index % 2] as Standalone, token)
        const answer = await call<{ code?: string }>('POST', '/sites', {
          customerId: racer.body.id,
          name: `race ${index}`,
          type: 'plain',
          domain: `race${index}.racer.example.com`,
        })
        return answer.status === 201 ? 'created' : `${answer.status} ${answer.body.code}`
      }),
    )
    expect(race.filter((outcome) => outcome === 'created')).toHaveLength(1)
    expect(race.filter((outcome) => outcome !== 'created')).toEqual(Array(9).fill('422 site_limit_reached'))
    const racerSites = await viaB<{ items: Site[] }>('GET', `/sites?customerId=${racer.body.id}`)
    expect(racerSites.body.items).toHaveLength(3)

    // 5. Every event since the endpoint was made reaches the receiver, each once: first let the sites settle.
    await eventually('the racer’s sites to become active', async () => {
      const sites = await viaB<{ items: Site[] }>('GET', `/sites?customerId=${racer.body.id}`)
      return sites.body.items.every((site) => site.status === 'active') ? true : undefined
    })
    const { deliveries, written } = await eventually('every event to be delivered', async () => {
      const written = await installationRows<{ id: string }>(
        dataDir,
        'SELECT id FROM event_outbox WHERE occurred_at > ?',
        [since],
      )
      const deliveries = await installationRows<{ event_id: string; status: string }>(
        dataDir,
        'SELECT event_id, status FROM webhook_deliveries WHERE endpoint_id = ?',
        [endpoint.body.id],
      )
      const delivered = new Set(
        deliveries.filter((row) => row.status === 'succeeded').map((row) => row.event_id),
      )
      return written.every((row) => delivered.has(row.id)) ? { deliveries, written } : undefined
    })
    // 101 customers created; three sites created and activated; their jobs finished: at least.
    expect(written.length).toBeGreaterThanOrEqual(101 + 9)
    const eventIds = deliveries.map((row) => row.event_id)
    // Each event was fanned out to the endpoint once, and the receiver got each once.
    expect(new Set(eventIds).size).toBe(eventIds.length)
    expect(eventIds.toSorted()).toEqual(written.map((row) => row.id).toSorted())
    expect([...receiver.received.keys()].sort()).toEqual(eventIds.toSorted())
    expect([...receiver.received.values()].every((count) => count === 1)).toBe(true)
  }, 120_000)
})
