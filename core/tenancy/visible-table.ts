// A plugin's table as callers' views reach it, declared once: which rows a view may see, and one of them or 404.
// Every read and list of the table goes through it, so the tenancy filter is written in one place per table.

import { type Kysely, type SelectQueryBuilder, type SqlBool, sql } from 'kysely'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'
import { lockRows } from '../store/row-locks.ts'
import type { Db } from '../store/store.ts'
import { type TenantView, visibleTo } from './tenant-view.ts'

/**
 * Whose a table's rows are: a customer's (`customerColumn`: the view's customers see them; a customers table names
 * its own `id`), or, in a staff area, a brand's (`brandColumn`: platform staff see all of them, a brand's staff
 * their brand's, customers none), or the platform's (`'platform'`: the provider's own records, such as nodes, that
 * only platform staff see).
 */
export type TableTenancy = { readonly customerColumn: string } | { readonly brandColumn: string } | 'platform'

/** A table as views reach it; see {@link visibleTable}. */
export interface VisibleTable<DB, T extends keyof DB & string> {
  /** The rows `view` may see, every column, as a query: further `where`s narrow, never widen. */
  visible(db: Db, view: TenantView): SelectQueryBuilder<DB, T, DB[T]>
  /**
   * The row with this `id` inside `view`, or 404 `not_found`: a missing row and one the caller may not see alike.
   * With `lock`, inside a transaction, the row is locked until it ends (`lockRows`): a change of what hangs on it
   * made meanwhile waits, and is seen.
   */
  find(db: Db, view: TenantView, id: string, options?: { readonly lock?: boolean }): Promise<DB[T]>
  /**
   * Deletes the rows whose `column` holds `value`, whichever view sees them: for a deletion whose caller found
   * what they belong to in its view (a resource's row, its children by their parent's id). Answers how many went.
   */
  removeWhere(db: Db, column: string, value: string): Promise<number>
}

/** The predicate of a brand-owned row inside `view`. */
function brandRows<Q extends SelectQueryBuilder<never, never, unknown>>(
  query: Q,
  column: string,
  view: TenantView,
): Q {
  // biome-ignore lint/suspicious/noExplicitAny: the column is the declaring table's own
  const where = query.where as (...args: any[]) => Q
  switch (view.kind) {
    case 'all':
      return query
    case 'brand':
      return where.call(query, column, '=', view.brandId)
    case 'customers':
      // Staff areas are never given a view of customers; one that were would see nothing (not even the rows of
      // no brand: those are platform staff's).
      return where.call(query, sql<SqlBool>`1 = 0`)
  }
}

/**
 * Declares how views reach `table` of the plugin's tables (`tables` gives them a store's query builder).
 * @example export const plans = visibleTable(billingTables, 'plans', { brandColumn: 'brand_id' })
 * @example const row = await plans.find(trx, view, params.id)
 */
export function visibleTable<DB, T extends keyof DB & string>(
  tables: (db: Db) => Kysely<DB>,
  table: T,
  tenancy: TableTenancy,
): VisibleTable<DB, T> {
  const qualified = (column: string) => (column.includes('.') ? column : `${table}.${column}`)
  type Rows = SelectQueryBuilder<DB, T, DB[T]>
  // biome-ignore lint/suspicious/noExplicitAny: Kysely cannot type a table name chosen by the caller
  const from = (db: Db) => tables(db).selectFrom(table as any)
  const visible = (db: Db, view: TenantView): Rows => {
    const rows = from(db).selectAll() as Rows
    if (tenancy === 'platform') return view.kind === 'all' ? rows : rows.where(sql<SqlBool>`1 = 0`)
    if ('brandColumn' in tenancy) return brandRows(rows as never, qualified(tenancy.brandColumn), view)
    return rows.where(visibleTo(view, qualified(tenancy.customerColumn)))
  }
  const idColumn = `${table}.id` as never
  return {
    visible,
    async find(db, view, id, options = {}) {
      const query = visible(db, view).where(idColumn, '=', id as never)
      const row = await (options.lock ? lockRows(db, query) : query).executeTakeFirst()
      if (row === undefined) throw new Problem(kernelProblems.not_found)
      return row as DB[T]
    },
    async removeWhere(db, column, value) {
      // biome-ignore lint/suspicious/noExplicitAny: Kysely cannot type a table and column chosen by the caller
      const from = tables(db).deleteFrom(table as any) as any
      const removal = from.where(column, '=', value) as {
        executeTakeFirst(): Promise<{ numDeletedRows: bigint }>
      }
      return Number((await removal.executeTakeFirst()).numDeletedRows)
    },
  }
}
