// The outbox with two panel instances on one store (the engine of the run): every event written on either is handed
// to the consumers exactly once, counting the batches that were rolled back (a consumer never runs twice for one
// event), while both dispatchers run; and an event written on one instance is dispatched by the other at once,
// though that one polls only once a minute (store.notify / store.listen).

import { afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Type as t } from '@sinclair/typebox'
import { definePlugin, type PluginContext } from '../plugin/define-plugin.ts'
import { waitFor } from '../testing/async.ts'
import { createKernelTestPanel, type TestPanel } from '../testing/create-test-panel.ts'
import type { DispatcherOptions } from './dispatcher.ts'
import type { OutboxTables } from './outbox-tables.ts'

/** One consumer call: which instance's consumer was handed which event. */
interface Receipt {
  readonly instance: string
  readonly eventId: string
  readonly n: number
}

interface Instance {
  readonly name: string
  readonly tp: TestPanel
  readonly context: PluginContext
}

const receipts: Receipt[] = []
const instances: Instance[] = []

afterEach(async () => {
  for (const instance of instances.splice(0)) await instance.tp.panel.close()
})

/** Two instances (`a`, `b`) of one installation on a fresh store, each with a consumer that records every call. */
async function twoInstances(events: Partial<DispatcherOptions>): Promise<[Instance, Instance]> {
  const storePath = join(mkdtempSync(join(tmpdir(), 'plinth-outbox-')), 'plinth.sqlite')
  receipts.length = 0
  const made: Instance[] = []
  for (const name of ['a', 'b']) {
    let context: PluginContext | undefined
    const things = definePlugin({
      name: 'things',
      version: '1.0.0',
      description: 'Emits numbered test events and records what it is handed.',
      events: [
        { kind: 'thing.happened', description: 'A numbered thing.', payload: t.Object({ n: t.Integer() }) },
      ],
      setup(given) {
        context = given
        given.consumeEvents({
          name: 'recorder',
          async receive(_trx, event) {
            // Recorded as the call happens: a batch rolled back and offered again would show twice.
            receipts.push({ instance: name, eventId: event.id, n: Number(event.data.n) })
          },
        })
      },
    })
    const tp = await createKernelTestPanel({ plugins: [things], storePath, events })
    if (!context) throw new Error('The plugin was not set up')
    const instance = { name, tp, context }
    made.push(instance)
    instances.push(instance)
  }
  return made as [Instance, Instance]
}

/** Writes `thing.happened` events numbered `ns` on `instance`, in one transaction. */
function happen(instance: Instance, ns: readonly number[]): Promise<void> {
  return instance.context.transaction(async (trx) => {
    for (const n of ns)
      await instance.context.emit(trx, { kind: 'thing.happened', customerId: null, data: { n } })
  })
}

function outbox(instance: Instance) {
  return instance.tp.panel.store.db
    .withTables<OutboxTables>()
    .selectFrom('event_outbox')
    .selectAll()
    .execute()
}

describe('the outbox with two instances on one store', () => {
  test('every event written on either is handed over exactly once, by one dispatcher at a time', async () => {
    const [a, b] = await twoInstances({ pollIntervalMs: 10, batchSize: 5 })
    a.tp.panel.start()
    b.tp.panel.start()
    const writes: Promise<void>[] = []
    for (let i = 0; i < 30; i++) writes.push(happen(i % 2 === 0 ? a : b, [2 * i, 2 * i + 1]))
    await Promise.all(writes)
    await waitFor(
      'every event to be dispatched',
      async () => (await outbox(a)).every((row) => row.dispatched_at !== null),
      15_000,
    )
    const rows = await outbox(b)
    expect(rows).toHaveLength(60)
    // Each event once, counting calls in batches that did not commit: no consumer ran twice for one event.
    expect(receipts.map((receipt) => receipt.eventId).sort()).toEqual(rows.map((row) => row.id).sort())
    expect(receipts.map((receipt) => receipt.n).sort((x, y) => x - y)).toEqual([...Array(60).keys()])
  })

  test('an event written on one instance is dispatched by the other at once, though it polls once a minute', async () => {
    const [a, b] = await twoInstances({ pollIntervalMs: 60_000 })
    // a only writes (as the CLI would); b dispatches.
    b.tp.panel.start()
    for (let n = 1; n <= 3; n++) {
      await happen(a, [n])
      // Far sooner than b's next poll: only the notice of a's commit can have woken it.
      await waitFor(`b to dispatch event ${n}`, () => receipts.some((receipt) => receipt.n === n), 5_000)
    }
    expect(receipts.map((receipt) => `${receipt.instance}:${receipt.n}`)).toEqual(['b:1', 'b:2', 'b:3'])
  })
})
