// Keyset pagination over any query: `{ items, nextCursor }`, as cheap deep in a million rows as on the first page.

import { Type as t } from '@sinclair/typebox'
import { type SelectQueryBuilder, type SqlBool, sql } from 'kysely'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'
import { decodeCursor, encodeCursor } from './cursor.ts'
import type { ListFilters, ListSource } from './prepared-list.ts'

/** Query parameters every list accepts; spread them into the route's query schema. */
export const pageQuery = {
  cursor: t.Optional(
    t.String({ minLength: 1, maxLength: 512, description: 'The `nextCursor` of the previous page.' }),
  ),
  limit: t.Optional(
    t.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1 to 100 (default 20).' }),
  ),
}

/** A page of a list. */
export interface Page<Item> {
  readonly items: readonly Item[]
  /** Pass as `cursor` for the next page; null on the last page. */
  readonly nextCursor: string | null
}

/** The schema of a page of `item`s, for a route's response. */
export function pageOf<S extends import('@sinclair/typebox').TSchema>(item: S, name: string) {
  return t.Object(
    {
      items: t.Array(item),
      nextCursor: t.Union([t.String(), t.Null()], {
        description: 'Cursor of the next page; null on the last page.',
      }),
    },
    { $id: name },
  )
}

/** How one page is read. */
export interface PageRequest {
  readonly cursor: string | undefined
  readonly limit: number
  /** What the walk is bound to (operation, caller, filters): a cursor is valid only for the same binding. */
  readonly binding: string
  readonly secret: string
}

/** `query` from just after `after` (when given), in key order, `limit` rows. */
function keyset<DB, TB extends keyof DB, Row>(
  query: SelectQueryBuilder<DB, TB, Row>,
  keyColumn: string,
  order: 'asc' | 'desc',
  after: string | undefined,
  limit: number,
): SelectQueryBuilder<DB, TB, Row> {
  let page = query
  if (after !== undefined) {
    const comparison =
      order === 'asc'
        ? sql<SqlBool>`${sql.ref(keyColumn)} > ${after}`
        : sql<SqlBool>`${sql.ref(keyColumn)} < ${after}`
    page = page.where(comparison)
  }
  return page.orderBy(sql.ref(keyColumn), order).limit(limit)
}

/**
 * Reads one page of `query` (a query builder, or a {@link preparedList} applied to a request), ordered by its
 * unique, time-sortable key column (`id`), ascending or descending. Rows inserted or deleted during a walk never
 * make a row appear twice, and rows present throughout are never skipped, because each page starts strictly after
 * the last key seen.
 */
export async function paginate<DB, TB extends keyof DB, Row extends Record<string, unknown>>(
  query: SelectQueryBuilder<DB, TB, Row> | ListSource<Row>,
  request: PageRequest,
  options: {
    readonly keyColumn: string
    readonly keyOf: (row: Row) => string
    readonly order?: 'asc' | 'desc'
    /**
     * Narrows the list by its filters before the page is cut: given the request's filter values for a query
     * builder, the same shape's placeholders for a prepared list.
     */
    readonly narrow?: (
      query: SelectQueryBuilder<DB, TB, Row>,
      filters: ListFilters,
    ) => SelectQueryBuilder<DB, TB, Row>
    /** The request's filter values, for `narrow`. */
    readonly filters?: ListFilters
  },
): Promise<{ rows: Row[]; nextCursor: string | null }> {
  const order = options.order ?? 'asc'
  let after: string | undefined
  if (request.cursor !== undefined) {
    const decoded = decodeCursor(request.cursor, request.binding, request.secret)
    if (decoded === null) throw new Problem(kernelProblems.invalid_cursor)
    after = decoded
  }
  // One more row than asked: whether it exists says whether there is a next page.
  const limit = request.limit + 1
  const narrow = options.narrow ?? ((list) => list)
  const rows =
    'run' in query
      ? await query.run(
          (list, start, size, shaped) =>
            keyset(
              narrow(list as SelectQueryBuilder<DB, TB, Row>, shaped),
              options.keyColumn,
              order,
              start,
              size,
            ),
          {
            shape: `${options.keyColumn} ${order} ${after === undefined ? 'first' : 'after'}`,
            after,
            limit,
          },
        )
      : await keyset(narrow(query, options.filters ?? {}), options.keyColumn, order, after, limit).execute()
  const more = rows.length > request.limit
  const items = more ? rows.slice(0, request.limit) : rows
  const last = items.at(-1)
  return {
    rows: items,
    nextCursor: more && last ? encodeCursor(options.keyOf(last), request.binding, request.secret) : null,
  }
}
