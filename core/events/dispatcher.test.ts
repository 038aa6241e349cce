// The outbox dispatcher, black-box: a plugin's route emits events, two consumers of another test plugin receive
// them in outbox order, each exactly once across several small batches; a consumer that throws rolls its whole
// batch back (the other consumer's writes too) and the batch is offered again; `dispatched()` follows the commit.
//
// The store is a file in a temporary directory so that a second, read-only connection can see what is committed
// (and only that) while the panel's own connection is in the middle of a batch.

import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, spyOn, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Type as t } from '@sinclair/typebox'
import { issueApiToken } from '../identity/api-tokens.ts'
import { createPanel, type Panel } from '../panel/create-panel.ts'
import { defaultLimits } from '../panel/limits.ts'
import { definePlugin } from '../plugin/define-plugin.ts'
import { defineRoute } from '../plugin/route.ts'
import { openSqliteStore } from '../store/sqlite-store.ts'
import { waitFor } from '../testing/async.ts'
import {
  brandA,
  brandB,
  customerA,
  customerB,
  fixturePlugin,
  twoTenants,
} from '../testing/tenancy-fixture.ts'
import { createTestUser } from '../testing/users.ts'
import type { OutboxEvent } from './event-consumer.ts'
import type { OutboxTables } from './outbox-tables.ts'

// ---------------------------------------------------------------------------------------------------------------
// Test-only helpers: a plugin that emits numbered events, and one with two recording consumers.

type ReceiptTables = { thing_receipts: { consumer: string; event_id: string; n: number } }

/** What one consumer saw: every event it was handed (rolled-back batches included), in order. */
interface Log {
  readonly events: OutboxEvent[]
}

const batchSize = 3

/** Emits `thing.happened` with `{ n }` for each n given, in one transaction. */
const thingsPlugin = definePlugin({
  name: 'things',
  version: '1.0.0',
  description: 'Emits numbered test events.',
  scopes: [{ name: 'thing:create', description: 'Make things happen' }],
  events: [
    {
      kind: 'thing.happened',
      description: 'A numbered thing happened.',
      payload: t.Object({ n: t.Integer() }),
    },
  ],
  routes: (context) => [
    defineRoute({
      method: 'POST',
      audited: false,
      path: '/things',
      operationId: 'makeThingsHappen',
      summary: 'Emit numbered events',
      scope: 'thing:create',
      body: t.Object({ customerId: t.Union([t.String(), t.Null()]), ns: t.Array(t.Integer()) }),
      responses: { 200: { description: 'Emitted.' } },
      async handler({ body, emit }) {
        await context.transaction(async (trx) => {
          for (const n of body.ns)
            await emit(trx, { kind: 'thing.happened', customerId: body.customerId, data: { n } })
        })
        return { emitted: body.ns.length }
      },
    }),
  ],
})

const first: Log = { events: [] }
const second: Log = { events: [] }
/** The `n` that makes the second consumer throw while set. */
let poison: number | null = null
let failures = 0
/** For each `dispatched()` of the first consumer: what a separate connection saw committed at that moment. */
const afterCommit: { received: number; lastDispatched: boolean; lastReceipts: number }[] = []
let reader: Database | undefined

/** Two consumers that write receipts in the batch's transaction; the second throws on the poisoned `n`. */
const receiversPlugin = definePlugin({
  name: 'receivers',
  version: '1.0.0',
  description: 'Records every event twice.',
  migrations: [
    {
      id: '0001_receipts',
      up: (db) =>
        db.schema
          .createTable('thing_receipts')
          .addColumn('consumer', 'text', (c) => c.notNull())
          .addColumn('event_id', 'text', (c) => c.notNull())
          .addColumn('n', 'integer', (c) => c.notNull())
          .execute(),
    },
  ],
  setup(context) {
    const receipt = (consumer: string, event: OutboxEvent) => ({
      consumer,
      event_id: event.id,
      n: Number(event.data.n ?? -1),
    })
    context.consumeEvents({
      name: 'first',
      async receive(trx, event) {
        first.events.push(event)
        await trx
          .withTables<ReceiptTables>()
          .insertInto('thing_receipts')
          .values(receipt('first', event))
          .execute()
      },
      dispatched() {
        // Synchronous, on another connection: it sees only what the batch's transaction committed.
        const last = first.events.at(-1)
        if (!reader || !last) return
        const outbox = reader
          .query<{ dispatched_at: string | null }, [string]>(
            'select dispatched_at from event_outbox where id = ?',
          )
          .get(last.id)
        const receipts = reader
          .query<{ count: number }, [string]>(
            "select count(*) as count from thing_receipts where consumer = 'first' and event_id = ?",
          )
          .get(last.id)
        afterCommit.push({
          received: first.events.length,
          lastDispatched: (outbox?.dispatched_at ?? null) !== null,
          lastReceipts: receipts?.count ?? 0,
        })
      },
    })
    context.consumeEvents({
      name: 'second',
      async receive(trx, event) {
        second.events.push(event)
        await trx
          .withTables<ReceiptTables>()
          .insertInto('thing_receipts')
          .values(receipt('second', event))
          .execute()
        if (poison !== null && event.data.n === poison) {
          failures += 1
          throw new Error(`second cannot take n=${poison}`)
        }
      },
    })
  },
})

// ---------------------------------------------------------------------------------------------------------------

let dir: string
let path: string
let panel: Panel
let token: string

const outbox = () =>
  panel.store.db.withTables<OutboxTables>().selectFrom('event_outbox').selectAll().orderBy('id').execute()
const receipts = () =>
  panel.store.db.withTables<ReceiptTables>().selectFrom('thing_receipts').selectAll().execute()

async function happen(customerId: string | null, ns: number[]): Promise<void> {
  const response = await panel.handle(
    new Request('http://localhost/api/v1/things', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ customerId, ns }),
    }),
  )
  expect(response.status).toBe(200)
  expect(await response.json()).toEqual({ emitted: ns.length })
}

/** Waits until every event in the outbox is marked dispatched. */
const allDispatched = () =>
  waitFor('every event to be dispatched', async () =>
    (await outbox()).every((row) => row.dispatched_at !== null),
  )

const ns = (log: Log) => log.events.map((event) => event.data.n)

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plinth-events-'))
  path = join(dir, 'panel.db')
  panel = await createPanel({
    store: openSqliteStore({ path }),
    plugins: [
      fixturePlugin({ description: 'Two brands with a customer each.', tenants: twoTenants }),
      thingsPlugin,
      receiversPlugin,
    ],
    secret: 'test-secret-test-secret-test-secret-!',
    events: { pollIntervalMs: 20, batchSize },
    jobs: { pollIntervalMs: 20 },
  })
  reader = new Database(path, { readonly: true })
  const staff = await createTestUser(panel.store.db, { email: 'staff@example.test', staffRole: 'platform' })
  const issued = await panel.store.transaction((trx) =>
    issueApiToken(
      trx,
      staff,
      { name: 'test', scopes: ['*'], customerId: null, expiresAt: null },
      { defaultDays: defaultLimits.tokenDefaultLifetimeDays, maxDays: defaultLimits.tokenMaxLifetimeDays },
    ),
  )
  token = issued.token
  panel.start()
})
afterAll(async () => {
  await panel.close()
  reader?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('the dispatcher', () => {
  test('consumers receive every event once, in outbox order, across batches of at most batchSize', async () => {
    await happen(customerA, [1, 2])
    await happen(customerB, [3, 4, 5])
    await happen(null, [6])
    await happen(customerA, [7, 8, 9, 10])
    await allDispatched()

    const rows = await outbox()
    expect(rows).toHaveLength(10)
    const expected = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    expect(ns(first)).toEqual(expected)
    expect(ns(second)).toEqual(expected)
    // Outbox (id) order, each event once, to each consumer.
    expect(first.events.map((event) => event.id)).toEqual(rows.map((row) => row.id))
    expect(second.events.map((event) => event.id)).toEqual(rows.map((row) => row.id))
    expect((await receipts()).length).toBe(20)

    // dispatched() ran once per committed batch, each of 1 to batchSize events, and after the commit: another
    // connection already saw the batch's last event dispatched and the consumer's receipt for it.
    const sizes = afterCommit.map((check, index) => check.received - (afterCommit[index - 1]?.received ?? 0))
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(10)
    expect(sizes.every((size) => size >= 1 && size <= batchSize)).toBe(true)
    expect(sizes.length).toBeGreaterThanOrEqual(Math.ceil(10 / batchSize))
    expect(afterCommit.every((check) => check.lastDispatched && check.lastReceipts === 1)).toBe(true)
  })

  test('events carry the customer and the brand of the customer', () => {
    const byN = new Map(first.events.map((event) => [event.data.n, event]))
    expect(byN.get(1)).toMatchObject({ kind: 'thing.happened', customerId: customerA, brandId: brandA })
    expect(byN.get(3)).toMatchObject({ customerId: customerB, brandId: brandB })
    expect(byN.get(6)).toMatchObject({ customerId: null, brandId: null })
    expect(byN.get(10)).toMatchObject({ customerId: customerA, brandId: brandA, data: { n: 10 } })
    expect(byN.get(10)?.occurredAt).toEqual(expect.any(String))
  })

  test('a consumer that throws rolls the whole batch back, the other consumer’s writes too; it is offered again', async () => {
    const spy = spyOn(console, 'error').mockImplementation(() => {})
    try {
      const before = { first: first.events.length, dispatched: afterCommit.length }
      poison = 12
      await happen(customerA, [11, 12, 13])
      await waitFor('the batch to fail twice', () => failures >= 2)

      const pending = (await outbox()).slice(-3)
      expect(pending.map((row) => row.dispatched_at)).toEqual([null, null, null])
      const ids = new Set(pending.map((row) => row.id))
      // The first consumer took 11, 12 and 13, the second 11, before the throw: none of it was kept.
      expect((await receipts()).filter((row) => ids.has(row.event_id))).toEqual([])
      expect(afterCommit.length).toBe(before.dispatched)
      // Logged as a JSON line naming the event and the consumer that threw.
      const logged = spy.mock.calls.map((call) => JSON.parse(String(call[0])) as Record<string, unknown>)
      expect(logged).toContainEqual(
        expect.objectContaining({
          level: 'error',
          msg: 'dispatching events failed; the batch is offered again',
          kind: 'thing.happened',
          eventId: expect.stringMatching(/^evt_/),
          consumer: expect.any(String),
        }),
      )

      poison = null
      await allDispatched()
      const kept = (await receipts()).filter((row) => ids.has(row.event_id))
      expect(kept.map((row) => `${row.consumer}:${row.n}`).sort()).toEqual([
        'first:11',
        'first:12',
        'first:13',
        'second:11',
        'second:12',
        'second:13',
      ])
      // Offered again: the first consumer was handed 11 once per failed try and once more, in order each time.
      const again = ns({ events: first.events.slice(before.first) })
      expect(again.filter((n) => n === 11).length).toBe(failures + 1)
      expect(again.slice(-3)).toEqual([11, 12, 13])
      expect(afterCommit.length).toBe(before.dispatched + 1)
      expect(afterCommit.at(-1)).toMatchObject({ lastDispatched: true, lastReceipts: 1 })
    } finally {
      poison = null
      spy.mockRestore()
    }
  })
})
