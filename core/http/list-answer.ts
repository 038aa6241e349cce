// The answer of a list route: whatever its handler returned, walked one keyset page and signed.

import type { SelectQueryBuilder } from 'kysely'
import { paginate } from '../pagination/paginate.ts'
import type { ListFilters, ListSource } from '../pagination/prepared-list.ts'
import type { ListDeclaration } from '../plugin/list-declaration.ts'

/** What a list handler may return: a query builder, or a prepared list applied to the request. */
type Listable = { execute(): Promise<unknown[]> } | ListSource<Record<string, unknown>>

function isListable(value: unknown): value is Listable {
  if (value === null || typeof value !== 'object') return false
  return 'run' in value || ('execute' in value && 'compile' in value)
}

/** How a list is walked: its key column, how a row's key is read, its order. */
interface Walk {
  readonly keyColumn: string
  readonly keyOf: (row: Record<string, unknown>) => string
  readonly order: 'asc' | 'desc'
}

/** Each list's walk, worked out on its first page. */
const walks = new WeakMap<ListDeclaration, Walk>()

function walkOf(list: ListDeclaration): Walk {
  let walk = walks.get(list)
  if (!walk) {
    const keyColumn = list.key ?? 'id'
    const keyName = keyColumn.slice(keyColumn.lastIndexOf('.') + 1)
    // The row's field of the column's name, or its camelCase (`memberships.user_id` read as `userId`).
    const camelName = keyName.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase())
    walk = { keyColumn, keyOf: (row) => String(row[keyName] ?? row[camelName]), order: list.order ?? 'asc' }
    walks.set(list, walk)
  }
  return walk
}

// biome-ignore lint/suspicious/noExplicitAny: a list's query reads whatever tables its route names
type AnyQuery = SelectQueryBuilder<any, any, any>

/** The list narrowed by each declared filter that is set: its column equal to the value (`in` a list), or its own. */
function narrowed(filters: ListDeclaration['filters']) {
  const declared = Object.entries(filters ?? {})
  if (declared.length === 0) return undefined
  return (query: AnyQuery, values: ListFilters): AnyQuery => {
    let narrowedQuery = query
    for (const [name, filter] of declared) {
      const value = values[name]
      if (value === undefined) continue
      if (typeof filter !== 'string') narrowedQuery = filter(narrowedQuery, value as never)
      else narrowedQuery = narrowedQuery.where(filter, Array.isArray(value) ? 'in' : '=', value)
    }
    return narrowedQuery
  }
}

/** One page of `returned` for `cursor` and `limit`, narrowed by the request's `filters`, as `{ items, nextCursor }`. */
export async function listAnswer(
  list: ListDeclaration,
  returned: unknown,
  page: { cursor: string | undefined; limit: number; binding: string; secret: string },
  filters: ListFilters,
  route: string,
): Promise<{ items: unknown[]; nextCursor: string | null }> {
  if (!isListable(returned))
    throw new Error(`List route ${route} returned neither a query builder nor a prepared list`)
  if ('run' in returned) {
    // A prepared list binds the filters it was given: one declared, sent and not handed over would widen the list.
    const dropped = Object.keys(list.filters ?? {}).filter(
      (name) => filters[name] !== undefined && returned.filters[name] === undefined,
    )
    if (dropped.length > 0)
      throw new Error(`List route ${route} did not give its prepared list the filters ${dropped.join(', ')}`)
  }
  const narrow = narrowed(list.filters)
  const walk = { ...walkOf(list), filters, ...(narrow ? { narrow } : {}) }
  // biome-ignore lint/suspicious/noExplicitAny: the walk reads whatever tables the route's query names
  const { rows, nextCursor } = await paginate(returned as any, page, walk as any)
  const toItem = list.toItem as ((row: unknown) => unknown) | undefined
  return { items: toItem ? rows.map((row) => toItem(row)) : rows, nextCursor }
}
