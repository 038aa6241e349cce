// Table stamps: equal while nothing wrote the watched tables, different after any write to them from anywhere.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { preparedQuery } from './prepared-query.ts'
import { openSqliteStore } from './sqlite-store.ts'
import type { Db, Store } from './store.ts'
import { stampOf, type TableWatch, watchTables } from './table-watch.ts'

type Tables = { watched: { id: string }; other: { id: string } }

let dataDir: string
let store: Store
let elsewhere: Store
let watch: TableWatch

/** The stamp now, read the way a kept value's is: `writes()` first, then a statement selecting `version`. */
const versionNow = preparedQuery<Record<string, never>, { version: number }>((db) =>
  db.selectNoFrom(sql<number>`(select data_version from pragma_data_version)`.as('version')),
)
async function stamp(db: Db = store.db): Promise<string> {
  const writes = watch.writes()
  const [row] = await versionNow(db, {})
  return stampOf(row?.version, writes)
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'plinth-table-watch-'))
  const path = join(dataDir, 'plinth.sqlite')
  store = openSqliteStore({ path })
  elsewhere = openSqliteStore({ path })
  await sql`create table watched (id text primary key)`.execute(store.db)
  await sql`create table other (id text primary key)`.execute(store.db)
  const made = watchTables(store.db, ['watched'])
  if (!made) throw new Error('SQLite stores can watch tables')
  watch = made
})

afterAll(async () => {
  await elsewhere.close()
  await store.close()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('watchTables', () => {
  test('keeps the stamp while this process only reads, or writes other tables', async () => {
    const before = await stamp()
    await store.db.withTables<Tables>().selectFrom('watched').selectAll().execute()
    await store.db.withTables<Tables>().insertInto('other').values({ id: 'o1' }).execute()
    expect(await stamp()).toBe(before)
  })

  test('changes the stamp when this process writes a watched table, in a transaction or not', async () => {
    const before = await stamp()
    await store.db.withTables<Tables>().insertInto('watched').values({ id: 'w1' }).execute()
    const afterInsert = await stamp()
    expect(afterInsert).not.toBe(before)
    await store.transaction((trx) =>
      trx.withTables<Tables>().deleteFrom('watched').where('id', '=', 'w1').execute(),
    )
    expect(await stamp()).not.toBe(afterInsert)
  })

  test('changes the stamp when another connection to the file commits (the CLI beside the server)', async () => {
    const before = await stamp()
    await elsewhere.db.withTables<Tables>().insertInto('watched').values({ id: 'w2' }).execute()
    expect(await stamp()).not.toBe(before)
  })

  test('is not offered by a store that cannot tell cheaply', () => {
    const notSqlite = { getExecutor: () => ({ adapter: {} }) } as unknown as Db
    expect(watchTables(notSqlite, ['watched'])).toBeNull()
  })
})
