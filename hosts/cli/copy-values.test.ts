// Values where SQLite and PostgreSQL differ: what `store copy` converts, and what it refuses rather than guess.

import { describe, expect, test } from 'bun:test'
import { toPostgres, UncopyableValue } from './copy-values.ts'

describe('a SQLite value for a PostgreSQL column', () => {
  test('integers stay exact beyond 2^53, and a whole REAL becomes an integer', () => {
    expect(toPostgres(9_007_199_254_740_993n, 'bigint', 'node_traffic.bytes, row 1')).toBe(
      9_007_199_254_740_993n,
    )
    expect(toPostgres(42, 'integer', 'jobs.progress, row 1')).toBe(42n)
  })

  test('0 and 1 become booleans; blobs become bytes; text, JSON included, stays as it is', () => {
    expect(toPostgres(0n, 'boolean', 't.c, row 1')).toBe(false)
    expect(toPostgres(1n, 'boolean', 't.c, row 1')).toBe(true)
    const bytes = toPostgres(new Uint8Array([0, 255, 7]), 'bytea', 't.c, row 1')
    expect(Buffer.isBuffer(bytes)).toBe(true)
    expect([...(bytes as Buffer)]).toEqual([0, 255, 7])
    expect(toPostgres('{"a":1}', 'jsonb', 't.c, row 1')).toBe('{"a":1}')
    expect(toPostgres('whsec_sealed…', 'text', 't.c, row 1')).toBe('whsec_sealed…')
    expect(toPostgres(null, 'bigint', 't.c, row 1')).toBeNull()
  })

  test('a number SQLite kept in a text column is copied as its text; a big one into numeric without rounding', () => {
    expect(toPostgres(12n, 'text', 't.c, row 1')).toBe('12')
    expect(toPostgres(9_007_199_254_740_993n, 'numeric', 't.c, row 1')).toBe('9007199254740993')
  })

  test('what would change meaning is refused, naming the table, column and row', () => {
    expect(() => toPostgres('abc', 'bigint', 'sites.disk_mb, row 3')).toThrow(
      new UncopyableValue(
        'sites.disk_mb, row 3',
        'the text "abc" where PostgreSQL keeps an integer (bigint)',
      ),
    )
    expect(() => toPostgres(1.5, 'bigint', 't.c, row 1')).toThrow('where PostgreSQL keeps an integer')
    expect(() => toPostgres(2n, 'boolean', 't.c, row 1')).toThrow('where PostgreSQL keeps a boolean')
    expect(() => toPostgres(new Uint8Array(4), 'text', 'users.email, row 9')).toThrow(
      'users.email, row 9: a blob of 4 bytes where PostgreSQL keeps text (text)',
    )
  })
})
