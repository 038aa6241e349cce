// Lists compiled once per shape: the query of a page depends on which filters are set and how the view is made,
// never on the values, so each shape is built and compiled once and later pages only bind values.

import type { Compilable, SelectQueryBuilder } from 'kysely'
import { placeholder, QueryShapes } from '../store/prepared-query.ts'
import type { Db } from '../store/store.ts'
import type { TenantView } from '../tenancy/tenant-view.ts'

/** A filter's value as a list receives it from the query string: a scalar, a list of scalars, or not set. */
export type ListFilterValue = string | number | boolean | readonly (string | number | boolean)[] | undefined

/** A list's query before paging, over whichever tables it reads. */
// biome-ignore lint/suspicious/noExplicitAny: any table set; the rows are what a list is typed by
export type ListQuery<Row> = SelectQueryBuilder<any, any, Row>

/** The filters of a list, by name. */
export type ListFilters = { readonly [name: string]: ListFilterValue }

/**
 * What a list reads, before paging: its query for one view and one set of filters. `build` runs once per shape
 * (view kind and number of customers, which filters are set, the length of list-valued filters), with
 * placeholders standing for the values, so it may decide on whether a filter is set but never on its value, and
 * must use each value only as a bound value (`where('status', '=', filters.status)`).
 */
export type ListBuild<Filters extends ListFilters, Row> = (
  db: Db,
  view: TenantView,
  filters: Filters,
) => ListQuery<Row>

/** A prepared list applied to one request's view and filters: what `page()` reads. */
export interface ListSource<Row> {
  /** The filters it was given (a route's declared filters are applied only when given here). */
  readonly filters: ListFilters
  /**
   * Reads one page: `keyset` adds the start (when there is one), the order and the limit to the list's query (and
   * the route's declared filters, given the filters of the same shape with placeholders), and `page.shape` names
   * what it adds (key column, order, first page or not).
   */
  run(
    keyset: (
      query: ListQuery<Row>,
      after: string | undefined,
      limit: number,
      filters: ListFilters,
    ) => Compilable<Row>,
    page: { readonly shape: string; readonly after: string | undefined; readonly limit: number },
  ): Promise<Row[]>
}

/** A list query built once per shape; see {@link preparedList}. */
export interface PreparedList<Filters extends ListFilters, Row> {
  /** The list for one request: read it with `page(list.of(db, view, filters), options)`. */
  of(db: Db, view: TenantView, filters: Filters): ListSource<Row>
}

/** The shape of a view (its kind, and how many customers), naming its values `v0`, `v1`... in `params`. */
function viewShape(view: TenantView, params: Record<string, unknown>): string {
  switch (view.kind) {
    case 'all':
      return 'all'
    case 'brand':
      params.v0 = view.brandId
      return 'brand'
    case 'customers':
      view.customerIds.forEach((id, i) => {
        params[`v${i}`] = id
      })
      return `customers${view.customerIds.length}`
  }
}

/** The view of the same shape with placeholders for its values, to build the query with. */
function viewPlaceholders(view: TenantView): TenantView {
  switch (view.kind) {
    case 'all':
      return view
    case 'brand':
      return { kind: 'brand', brandId: placeholder('v0') }
    case 'customers':
      return { kind: 'customers', customerIds: view.customerIds.map((_, i) => placeholder(`v${i}`)) }
  }
}

/** The filters of the same shape with placeholders for their values, to build the query with. */
function filterPlaceholders(filters: ListFilters): ListFilters {
  const placeholders: Record<string, ListFilterValue> = {}
  for (const [name, value] of Object.entries(filters)) {
    if (value === undefined) continue
    placeholders[name] = Array.isArray(value)
      ? value.map((_, i) => placeholder(`f.${name}.${i}`))
      : placeholder(`f.${name}`)
  }
  return placeholders
}

/**
 * A list whose query is compiled once per shape instead of on every request: define it once (beside the routes),
 * then in the handler `page(list.of(context.db, view, filters), { keyColumn, keyOf, filters })`. The pages are
 * the same as with a query built per request, for a fraction of the cost on lists that are read often.
 *
 * @example
 * const sitesList = preparedList((db, view, filters: { status?: string }) => {
 *   let sites = visibleSites(db, view)
 *   if (filters.status !== undefined) sites = sites.where('sites.status', '=', filters.status)
 *   return sites
 * })
 */
export function preparedList<Filters extends ListFilters, Row>(
  build: ListBuild<Filters, Row>,
): PreparedList<Filters, Row> {
  const shapes = new QueryShapes()
  return {
    of(db, view, filters) {
      // Only the shape and the values per request; the placeholders are made when a shape is first built.
      const params: Record<string, unknown> = {}
      let shape = viewShape(view, params)
      for (const name of Object.keys(filters).sort()) {
        const value = filters[name]
        if (value === undefined) continue
        if (Array.isArray(value)) {
          shape += `|${name}[${value.length}]`
          value.forEach((item, i) => {
            params[`f.${name}.${i}`] = item
          })
        } else {
          shape += `|${name}`
          params[`f.${name}`] = value
        }
      }
      return {
        filters,
        run(keyset, page) {
          params.after = page.after
          params.limit = page.limit
          return shapes.run(
            db,
            `${shape}|${page.shape}`,
            () => {
              const shaped = filterPlaceholders(filters)
              return keyset(
                build(db, viewPlaceholders(view), shaped as Filters),
                page.after === undefined ? undefined : placeholder('after'),
                // Bound like any value: the placeholder stands for the number until the query runs.
                placeholder('limit') as unknown as number,
                shaped,
              )
            },
            params,
          )
        },
      }
    },
  }
}
