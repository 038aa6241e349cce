import { afterEach, describe, expect, test } from 'bun:test'
import { sql } from 'kysely'
import { preparedQuery } from './prepared-query.ts'
import { openSqliteStore } from './sqlite-store.ts'
import type { Store } from './store.ts'

type Tables = { things: { id: string; owner: string; kind: string } }

const stores: Store[] = []
async function storeWithThings(): Promise<Store> {
  const store = openSqliteStore({ path: ':memory:' })
  stores.push(store)
  await sql`create table things (id text primary key, owner text not null, kind text not null)`.execute(
    store.db,
  )
  await store.db
    .withTables<Tables>()
    .insertInto('things')
    .values([
      { id: 'a', owner: 'ann', kind: 'box' },
      { id: 'b', owner: 'ann', kind: 'bag' },
      { id: 'c', owner: 'bob', kind: 'box' },
    ])
    .execute()
  return store
}
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close()
})

describe('preparedQuery', () => {
  test('runs the query built once with the values of each call, keeping fixed values', async () => {
    const store = await storeWithThings()
    let builds = 0
    const boxesOf = preparedQuery<{ owner: string }, Tables['things']>((db, p) => {
      builds++
      return db
        .withTables<Tables>()
        .selectFrom('things')
        .selectAll()
        .where('owner', '=', p.owner)
        .where('kind', '=', 'box')
        .orderBy('id')
    })
    expect((await boxesOf(store.db, { owner: 'ann' })).map((row) => row.id)).toEqual(['a'])
    expect((await boxesOf(store.db, { owner: 'bob' })).map((row) => row.id)).toEqual(['c'])
    expect(await boxesOf(store.db, { owner: 'nobody' })).toEqual([])
    expect(builds).toBe(1)
  })

  test('works inside a transaction and compiles again for another store', async () => {
    const first = await storeWithThings()
    const second = await storeWithThings()
    let builds = 0
    const byId = preparedQuery<{ id: string }, Tables['things']>((db, p) => {
      builds++
      return db.withTables<Tables>().selectFrom('things').selectAll().where('id', '=', p.id)
    })
    const inside = await first.transaction((trx) => byId(trx, { id: 'b' }))
    expect(inside.map((row) => row.owner)).toEqual(['ann'])
    expect((await byId(first.db, { id: 'c' })).map((row) => row.owner)).toEqual(['bob'])
    expect((await byId(second.db, { id: 'a' })).map((row) => row.owner)).toEqual(['ann'])
    expect(builds).toBe(2)
  })

  test('refuses a build that writes a parameter into the SQL text', async () => {
    const store = await storeWithThings()
    const unsafe = preparedQuery<{ table: string }, unknown>((db, p) =>
      db.selectFrom(sql.table(p.table).as('t')).selectAll(),
    )
    await expect(unsafe(store.db, { table: 'things' })).rejects.toThrow(/written into the SQL text/)
  })
})

describe('preparedQuery outside a transaction', () => {
  test('waits for a transaction in progress and never reads its uncommitted rows', async () => {
    const store = await storeWithThings()
    const owners = preparedQuery<{ id: string }, Tables['things']>((db, p) =>
      db.withTables<Tables>().selectFrom('things').selectAll().where('id', '=', p.id),
    )
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    const writing = store.transaction(async (trx) => {
      await trx
        .withTables<Tables>()
        .insertInto('things')
        .values({ id: 'd', owner: 'dan', kind: 'box' })
        .execute()
      await held
      throw new Error('rolled back')
    })
    let read: Tables['things'][] | undefined
    const reading = owners(store.db, { id: 'd' }).then((rows) => {
      read = rows
    })
    await Bun.sleep(20)
    expect(read).toBeUndefined()
    release()
    await expect(writing).rejects.toThrow('rolled back')
    await reading
    expect(read).toEqual([])
  })

  test('takes numbers and other values as well as strings', async () => {
    const store = await storeWithThings()
    const firstOf = preparedQuery<{ owner: string; count: number }, Tables['things']>((db, p) =>
      db
        .withTables<Tables>()
        .selectFrom('things')
        .selectAll()
        .where('owner', '=', p.owner)
        .orderBy('id')
        .limit(p.count),
    )
    expect((await firstOf(store.db, { owner: 'ann', count: 1 })).map((row) => row.id)).toEqual(['a'])
    expect((await firstOf(store.db, { owner: 'ann', count: 5 })).map((row) => row.id)).toEqual(['a', 'b'])
  })
})
