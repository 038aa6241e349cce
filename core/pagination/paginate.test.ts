// Keyset pagination: a walk under concurrent inserts and deletes never repeats or skips a row, and cursors are bound.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { newId } from '../ids/ids.ts'
import { Problem } from '../problem/problem.ts'
import { openSqliteStore } from '../store/sqlite-store.ts'
import type { Store } from '../store/store.ts'
import { decodeCursor, encodeCursor } from './cursor.ts'
import { paginate } from './paginate.ts'

type Things = { things: { id: string } }
const secret = 'pagination-test-secret-pagination-test'
let store: Store
const things = () => store.db.withTables<Things>()

beforeAll(async () => {
  store = openSqliteStore({ path: ':memory:' })
  await store.db.schema
    .createTable('things')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .execute()
})
afterAll(() => store.close())

async function insert(count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => newId('thg'))
  await things()
    .insertInto('things')
    .values(ids.map((id) => ({ id })))
    .execute()
  return ids
}

describe('paginate', () => {
  test('a walk while rows come and go returns no row twice and every row that stayed throughout', async () => {
    const initial = await insert(100)
    const deleted = new Set<string>()
    const seen: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = await paginate(
        things().selectFrom('things').selectAll(),
        { cursor, limit: 7, binding: 'walk', secret },
        {
          keyColumn: 'id',
          keyOf: (row) => row.id,
        },
      )
      seen.push(...page.rows.map((row) => row.id))
      cursor = page.nextCursor ?? undefined
      pages++
      // Between pages: new rows arrive (after everything), and some not-yet-seen and some seen rows vanish.
      await insert(3)
      const victims = initial.filter((id) => !deleted.has(id)).filter((_, index) => index % 11 === pages % 11)
      for (const id of victims.slice(0, 2)) {
        deleted.add(id)
        await things().deleteFrom('things').where('id', '=', id).execute()
      }
    } while (cursor && pages < 1000)
    expect(new Set(seen).size).toBe(seen.length)
    const stayed = initial.filter((id) => !deleted.has(id))
    expect(stayed.filter((id) => !seen.includes(id))).toEqual([])
    expect(pages).toBeLessThan(1000)
  })

  test('the last page has no next cursor, and descending order walks newest first', async () => {
    const page = await paginate(
      things().selectFrom('things').selectAll(),
      { cursor: undefined, limit: 3, binding: 'b', secret },
      {
        keyColumn: 'id',
        keyOf: (row) => row.id,
        order: 'desc',
      },
    )
    expect(page.rows.map((row) => row.id)).toEqual([...page.rows.map((row) => row.id)].sort().reverse())
    const all = await paginate(
      things().selectFrom('things').selectAll(),
      { cursor: undefined, limit: 100_000, binding: 'b', secret },
      {
        keyColumn: 'id',
        keyOf: (row) => row.id,
      },
    )
    expect(all.nextCursor).toBeNull()
  })

  test('a cursor made for another walk, altered, or signed with another secret is 400 invalid_cursor', async () => {
    const cursor = encodeCursor('thg_x', 'list|alice', secret)
    expect(decodeCursor(cursor, 'list|alice', secret)).toBe('thg_x')
    expect(decodeCursor(cursor, 'list|bob', secret)).toBeNull()
    expect(decodeCursor(cursor, 'list|alice', `${secret}!`)).toBeNull()
    const altered = `${cursor.slice(0, 2)}${cursor[2] === 'A' ? 'B' : 'A'}${cursor.slice(3)}`
    expect(decodeCursor(altered, 'list|alice', secret)).toBeNull()
    const query = things().selectFrom('things').selectAll()
    const attempt = paginate(
      query,
      { cursor, limit: 5, binding: 'list|bob', secret },
      { keyColumn: 'id', keyOf: (row) => row.id },
    )
    await expect(attempt).rejects.toBeInstanceOf(Problem)
    await expect(attempt).rejects.toMatchObject({ status: 400, code: 'invalid_cursor' })
  })

  test('a cursor is its key in base64url and 128 bits of HMAC-SHA-256 over binding and key, however long', () => {
    const cases = [
      ['thg_01JDQ3V6Y4T1ZK0M2N5P7R9S8W', 'list|alice', secret],
      ['clé ünïcode', 'b'.repeat(10_000), 's'.repeat(200)],
      ['k', '', 'x'.repeat(64)],
    ] as const
    for (const [key, binding, macSecret] of cases) {
      const payload = Buffer.from(key, 'utf8').toString('base64url')
      const mac = createHmac('sha256', macSecret).update(`${binding}\n${payload}`).digest().subarray(0, 16)
      expect(encodeCursor(key, binding, macSecret)).toBe(`${payload}.${mac.toString('base64url')}`)
      expect(decodeCursor(encodeCursor(key, binding, macSecret), binding, macSecret)).toBe(key)
    }
  })

  test('a correctly signed cursor whose key is not base64url of UTF-8 is refused all the same', () => {
    const signed = (payload: string) => {
      const mac = createHmac('sha256', secret).update(`walk\n${payload}`).digest().subarray(0, 16)
      return `${payload}.${mac.toString('base64url')}`
    }
    expect(decodeCursor(signed('dGhnX3g'), 'walk', secret)).toBe('thg_x')
    for (const payload of ['dGhn+3g', 'dGhnX3g=', 'dGhnX', Buffer.from([0xff, 0xfe]).toString('base64url')])
      expect(decodeCursor(signed(payload), 'walk', secret)).toBeNull()
  })
})
