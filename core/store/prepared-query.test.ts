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
