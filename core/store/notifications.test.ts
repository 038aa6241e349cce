// Notices between the instances of one installation (`store.notify`, `store.listen`), on the engine of the run: two
// stores opened on one store path stand in for two instances. A notice arrives after its transaction committed
// (what it announces is readable), never for a transaction rolled back, once per channel and transaction, and
// never in another installation. On PostgreSQL, a listener whose connection was cut listens again and is woken.

import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { waitFor } from '../testing/async.ts'
import { openTestStore, testDatabaseUrl, testEngine } from '../testing/test-store.ts'
import type { Db, StopListening, Store } from './store.ts'

type NoteTables = { notes: { id: string } }
const notes = (db: Db) => db.withTables<NoteTables>()

const stores: Store[] = []
const stops: StopListening[] = []
afterAll(async () => {
  for (const stop of stops) await stop()
  for (const store of stores) await store.close()
})

/** Two stores of one fresh installation, with a `notes` table. */
async function twoInstances(): Promise<[Store, Store]> {
  const path = join(mkdtempSync(join(tmpdir(), 'plinth-notices-')), 'plinth.sqlite')
  const a = await openTestStore(path)
  const b = await openTestStore(path)
  stores.push(a, b)
  await a.db.schema
    .createTable('notes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .execute()
  return [a, b]
}

/** Listens on `channel` of `store`, recording each call; the first call is the one made as listening begins. */
async function record(store: Store, channel: string, onCall?: () => void): Promise<{ calls: number }> {
  const heard = { calls: 0 }
  stops.push(
    await store.listen(channel, () => {
      heard.calls++
      onCall?.()
    }),
  )
  return heard
}

describe('notices between instances', () => {
  test('a notice reaches the other instance after its transaction committed: what it announces is there', async () => {
    const [a, b] = await twoInstances()
    const seen: (string | undefined)[] = []
    let armed = false
    const heard = await record(b, 'test.notes', () => {
      // The call made as listening begins announces nothing; every later one is read at once, on b's connections.
      if (!armed) return
      void notes(b.db)
        .selectFrom('notes')
        .select('id')
        .where('id', '=', 'n1')
        .executeTakeFirst()
        .then((row) => seen.push(row?.id))
    })
    expect(heard.calls).toBe(1)
    armed = true
    await a.transaction(async (trx) => {
      await notes(trx).insertInto('notes').values({ id: 'n1' }).execute()
      await a.notify(trx, 'test.notes')
    })
    await waitFor('the notice', () => seen.length >= 1)
    expect(seen).toEqual(['n1'])
  })

  test('a rolled-back transaction notifies nobody; notices of one channel in one transaction are one', async () => {
    const [a, b] = await twoInstances()
    const many = await record(b, 'test.many')
    const marker = await record(b, 'test.marker')
    await expect(
      a.transaction(async (trx) => {
        await notes(trx).insertInto('notes').values({ id: 'lost' }).execute()
        await a.notify(trx, 'test.many')
        throw new Error('rolled back')
      }),
    ).rejects.toThrow('rolled back')
    await a.transaction(async (trx) => {
      for (let i = 0; i < 3; i++) await a.notify(trx, 'test.many')
    })
    // Notices arrive in commit order: once the marker's is heard, every earlier one has been.
    await a.transaction((trx) => a.notify(trx, 'test.marker'))
    await waitFor('the marker', () => marker.calls >= 2)
    expect(many.calls).toBe(1 + 1)
  })

  test('outside a transaction a notice is sent at once', async () => {
    const [a, b] = await twoInstances()
    const heard = await record(b, 'test.now')
    await a.notify(a.db, 'test.now')
    await waitFor('the notice', () => heard.calls >= 2)
  })

  test('another installation on the same server does not hear it', async () => {
    const [a] = await twoInstances()
    const [, elsewhere] = await twoInstances()
    const stranger = await record(elsewhere, 'test.private')
    const own = await record(a, 'test.private')
    const marker = await record(elsewhere, 'test.marker')
    await a.transaction((trx) => a.notify(trx, 'test.private'))
    await waitFor('its own instance to hear it', () => own.calls >= 2)
    await elsewhere.transaction((trx) => elsewhere.notify(trx, 'test.marker'))
    await waitFor('the other installation’s marker', () => marker.calls >= 2)
    expect(stranger.calls).toBe(1)
  })

  test('a malformed channel name is refused, on notify and on listen', async () => {
    const [a] = await twoInstances()
    await expect(a.notify(a.db, 'Jobs; drop table notes')).rejects.toThrow('is not a notification channel')
    await expect(a.listen('', () => {})).rejects.toThrow('is not a notification channel')
  })
})

describe.if(testEngine === 'postgres')('a lost listening connection (PostgreSQL)', () => {
  test('is made again: the listener is called when it listens again, and hears later notices', async () => {
    const [a, b] = await twoInstances()
    const heard = await record(b, 'test.reconnect')
    expect(heard.calls).toBe(1)
    // Cut the listening connection of b from the server side, as a restarted server or a dropped link would.
    const schema = (await sql<{ schema: string }>`select current_schema() as schema`.execute(b.db)).rows[0]
      ?.schema
    const admin = (await import('postgres')).default(testDatabaseUrl, { max: 1, onnotice: () => {} })
    try {
      const cut = await admin`select pg_terminate_backend(pid) as done from pg_stat_activity
        where query like ${`listen "plinth.${schema}.test.reconnect"%`}`
      expect(cut.length).toBe(1)
    } finally {
      await admin.end()
    }
    await waitFor('listening again', () => heard.calls >= 2, 10_000)
    const before = heard.calls
    await a.transaction((trx) => a.notify(trx, 'test.reconnect'))
    await waitFor('the notice after the reconnection', () => heard.calls > before, 10_000)
  })
})
