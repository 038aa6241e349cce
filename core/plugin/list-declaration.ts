// A list route, declared: its item, its keyset, and how its query-string filters narrow it; the kernel pages it.

import type { TSchema } from '@sinclair/typebox'
import type { SelectQueryBuilder } from 'kysely'

/**
 * How a list's query-string filter narrows its query: the column it must equal (`'status'`, `'sites.customer_id'`;
 * a list of values is `in`), or a function adding the `where` itself (a boolean stored as 0 or 1). On a prepared
 * list the function runs once per shape with a placeholder for the value: use it only as a bound value.
 * @example filters: { status: 'status', enabled: (query, enabled: boolean) => query.where('enabled', '=', enabled ? 1 : 0) }
 */
export type ListFilter =
  | string
  // biome-ignore lint/suspicious/noExplicitAny: a filter narrows whichever query its list returns
  | ((query: SelectQueryBuilder<any, any, any>, value: never) => SelectQueryBuilder<any, any, any>)

/**
 * A list operation, declared: the kernel adds `cursor` and `limit` to the query, narrows whatever the handler
 * returns (a query builder, or a `preparedList(...).of(...)`) by the declared `filters` that are set, walks its
 * keyset, signs the cursor (bound to the operation, caller, path and filters) and answers `{ items, nextCursor }`,
 * documented as `<item $id>Page`.
 */
export interface ListDeclaration {
  /** The item schema, named with `$id` (`Site`): the page is documented as `SitePage`. */
  readonly item: TSchema
  /** The unique, time-sortable key column of the walk; may be qualified (`sites.id`). Default `id`. */
  readonly key?: string
  /** Default `asc`: oldest first. */
  readonly order?: 'asc' | 'desc'
  /** Turns a row into an item; default: the row as it is. */
  readonly toItem?: (row: never) => unknown
  /**
   * The route's `query` parameters that narrow the list, each with how (see {@link ListFilter}): the kernel adds
   * the `where` of each one set, so the handler returns the list unfiltered (its tenancy and parent only).
   * @example filters: { customerId: 'customer_id', status: 'status' }
   */
  readonly filters?: Readonly<Record<string, ListFilter>>
}
