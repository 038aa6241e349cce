// Prepared lists: the same pages as the query built per request, compiled once per shape, for every kind of view.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'kysely'
import { newId } from '../ids/ids.ts'
import { openSqliteStore } from '../store/sqlite-store.ts'
import type { Db, Store } from '../store/store.ts'
import { selectVisible, type TenantView } from '../tenancy/tenant-view.ts'
import { paginate } from './paginate.ts'
import { preparedList } from './prepared-list.ts'

type Tables = {
  gadgets: { id: string; customer_id: string; colour: string; size: number }
  tenants: { customer_id: string; brand_id: string }
}
type Gadget = Tables['gadgets']
type Filters = { colour?: string; size?: number; colours?: readonly string[] }

const secret = 'prepared-list-test-secret-prepared-list'
const customers = ['cus_a', 'cus_b', 'cus_c']
const colours = ['red', 'green', 'blue']
let store: Store
let builds = 0

/** The list as a plugin writes it: tenancy first, then one narrowing per filter that is set. */
function gadgetsQuery(db: Db, view: TenantView, filters: Filters) {
  let gadgets = selectVisible(db.withTables<Tables>(), 'gadgets', view).selectAll()
  if (filters.colour !== undefined) gadgets = gadgets.where('colour', '=', filters.colour)
  if (filters.size !== undefined) gadgets = gadgets.where('size', '>=', filters.size)
  if (filters.colours !== undefined) gadgets = gadgets.where('colour', 'in', filters.colours)
  return gadgets
}
const gadgets = preparedList((db, view, filters: Filters) => {
  builds++
  return gadgetsQuery(db, view, filters)
})

beforeAll(async () => {
  store = openSqliteStore({ path: ':memory:' })
  await sql`create table gadgets (id text primary key, customer_id text not null, colour text not null, size integer not null)`.execute(
    store.db,
  )
  await sql`create table tenants (customer_id text primary key, brand_id text not null)`.execute(store.db)
  await store.db
    .withTables<Tables>()
    .insertInto('tenants')
    .values([
      { customer_id: 'cus_a', brand_id: 'brd_1' },
      { customer_id: 'cus_b', brand_id: 'brd_1' },
      { customer_id: 'cus_c', brand_id: 'brd_2' },
    ])
    .execute()
  const rows = Array.from({ length: 90 }, (_, i) => ({
    id: newId('gad'),
    customer_id: customers[i % 3] as string,
    colour: colours[Math.floor(i / 3) % 3] as string,
    size: i % 7,
  }))
  await store.db.withTables<Tables>().insertInto('gadgets').values(rows).execute()
})
afterAll(() => store.close())

/** Every page of a walk, as ids per page. */
async function walk(read: () => Parameters<typeof paginate>[0], order: 'asc' | 'desc' = 'asc') {
  const pages: string[][] = []
  let cursor: string | undefined
  do {
    const page = await paginate(
      read() as never,
      { cursor, limit: 4, binding: 'gadgets', secret },
      { keyColumn: 'gadgets.id', keyOf: (row: Gadget) => row.id, order },
    )
    pages.push(page.rows.map((row) => (row as Gadget).id))
    cursor = page.nextCursor ?? undefined
  } while (cursor)
  return pages
}

const views: TenantView[] = [
  { kind: 'all' },
  { kind: 'brand', brandId: 'brd_1' },
  { kind: 'customers', customerIds: ['cus_b'] },
  { kind: 'customers', customerIds: ['cus_a', 'cus_c'] },
  { kind: 'customers', customerIds: [] },
]
const filterSets: Filters[] = [
  {},
  { colour: 'green' },
  { colour: 'red', size: 3 },
  { colours: ['red', 'blue'] },
]

describe('preparedList', () => {
  test('walks the same pages as the query built per request, for every view and set of filters', async () => {
    for (const view of views) {
      for (const filters of filterSets) {
        for (const order of ['asc', 'desc'] as const) {
          const built = await walk(() => gadgetsQuery(store.db, view, filters) as never, order)
          const prepared = await walk(() => gadgets.of(store.db, view, filters) as never, order)
          expect(prepared).toEqual(built)
        }
      }
    }
  })

  test('builds each shape once, whatever the values', async () => {
    const before = builds
    const read = (view: TenantView, filters: Filters) =>
      paginate(
        gadgets.of(store.db, view, filters),
        { cursor: undefined, limit: 3, binding: 'gadgets', secret },
        { keyColumn: 'gadgets.id', keyOf: (row) => row.id },
      )
    await read({ kind: 'customers', customerIds: ['cus_a', 'cus_b', 'cus_c'] }, { size: 6 })
    await read({ kind: 'customers', customerIds: ['cus_c', 'cus_b', 'cus_a'] }, { size: 1 })
    const red = await read({ kind: 'customers', customerIds: ['cus_a', 'cus_b', 'cus_c'] }, { size: 0 })
    expect(builds).toBe(before + 1)
    expect(red.rows.every((row) => row.size >= 0)).toBe(true)
    const six = await read({ kind: 'customers', customerIds: ['cus_b', 'cus_a', 'cus_c'] }, { size: 6 })
    expect(six.rows.map((row) => row.size)).toEqual(six.rows.map(() => 6))
    await read({ kind: 'customers', customerIds: ['cus_a', 'cus_b'] }, { size: 6 })
    expect(builds).toBe(before + 2)
  })
})
