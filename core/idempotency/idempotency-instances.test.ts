// Idempotency-Key across instances: keys live in the store, so two panels on one store are one panel to a client
// retrying through a load balancer (on PostgreSQL, the claim's serializable transaction decides which one runs).
// On SQLite the two panels of this test are two connections in one process, whose write transactions cannot
// overlap (the second would wait for the first in a busy loop that blocks the only thread): there the requests of
// a round go one after the other, and overlapping ones are the concurrency test of one panel (idempotency.test.ts).

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { Type as t } from '@sinclair/typebox'
import { definePlugin } from '../plugin/define-plugin.ts'
import { defineRoute, Reply } from '../plugin/route.ts'
import type { TestPanel } from '../testing/create-test-panel.ts'
import { createTestInstances } from '../testing/instances.ts'
import { expectProblem } from '../testing/problems.ts'
import { testEngine } from '../testing/test-store.ts'

type ItemsTables = { items: { id: string; name: string } }

/** One creating POST whose handler takes a moment, so the two requests of a round overlap. */
const itemsPlugin = definePlugin({
  name: 'items',
  version: '1.0.0',
  description: 'Test items.',
  scopes: [{ name: 'item:create', description: 'Create items' }],
  migrations: [
    {
      id: '0001_items',
      up: (db) =>
        db.schema
          .createTable('items')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('name', 'text', (c) => c.notNull())
          .execute(),
    },
  ],
  routes: (context) => [
    defineRoute({
      method: 'POST',
      audited: false,
      path: '/items',
      operationId: 'createItem',
      summary: 'Create an item',
      scope: 'item:create',
      idempotent: true,
      body: t.Object({ name: t.String({ minLength: 1, maxLength: 100 }) }),
      responses: { 201: { description: 'Created.' } },
      async handler({ body }) {
        await Bun.sleep(5)
        const id = `item_${crypto.randomUUID()}`
        await context.transaction((trx) =>
          trx.withTables<ItemsTables>().insertInto('items').values({ id, name: body.name }).execute(),
        )
        return Reply.created({ id, name: body.name }, `/items/${id}`)
      },
    }),
  ],
})

let instances: TestPanel[]
let token: string
beforeAll(async () => {
  instances = await createTestInstances({ plugins: [itemsPlugin] })
  token = await (instances[0] as TestPanel).token()
})
afterAll(async () => {
  for (const instance of instances) await instance.panel.close()
})

const create = (instance: TestPanel, name: string, key: string) =>
  instance.request('POST', '/api/v1/items', { token, body: { name }, headers: { 'idempotency-key': key } })

test('the same key sent to two instances (at once on PostgreSQL) creates one resource; the other answer replays it or is 409 in flight', async () => {
  const [a, b] = instances as [TestPanel, TestPanel]
  for (let round = 0; round < 12; round++) {
    const name = `round ${round}`
    // Alternate which instance is asked first, so neither always wins the claim.
    const pair: [TestPanel, TestPanel] = round % 2 === 0 ? [a, b] : [b, a]
    const answers =
      testEngine === 'postgres'
        ? await Promise.all(pair.map((instance) => create(instance, name, `key-${round}`)))
        : [await create(pair[0], name, `key-${round}`), await create(pair[1], name, `key-${round}`)]
    const rows = await a.panel.store.db
      .withTables<ItemsTables>()
      .selectFrom('items')
      .select('id')
      .where('name', '=', name)
      .execute()
    expect(rows).toHaveLength(1)
    const first = answers.find(
      (answer) => answer.status === 201 && !answer.headers.has('idempotent-replayed'),
    )
    expect(first).toBeDefined()
    const created = (await first?.json()) as { id: string }
    expect(created.id).toBe(rows[0]?.id as string)
    const other = answers.find((answer) => answer !== first) as Response
    if (other.status === 409) {
      await expectProblem(other, 409, 'idempotency_request_in_flight')
    } else {
      expect(other.status).toBe(201)
      expect(other.headers.get('idempotent-replayed')).toBe('true')
      expect(((await other.json()) as { id: string }).id).toBe(created.id)
    }
    // Once the first has answered, either instance replays it.
    const again = await create(round % 2 === 0 ? b : a, name, `key-${round}`)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(((await again.json()) as { id: string }).id).toBe(created.id)
  }
})
