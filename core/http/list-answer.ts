// The answer of a list route: whatever its handler returned, walked one keyset page and signed.

import { paginate } from '../pagination/paginate.ts'
import type { ListSource } from '../pagination/prepared-list.ts'
import type { ListDeclaration } from '../plugin/route.ts'

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

/** One page of `returned` for `cursor` and `limit`, as `{ items, nextCursor }`. */
export async function listAnswer(
  list: ListDeclaration,
  returned: unknown,
  page: { cursor: string | undefined; limit: number; binding: string; secret: string },
  route: string,
): Promise<{ items: unknown[]; nextCursor: string | null }> {
  if (!isListable(returned))
    throw new Error(`List route ${route} returned neither a query builder nor a prepared list`)
  // biome-ignore lint/suspicious/noExplicitAny: the walk reads whatever tables the route's query names
  const { rows, nextCursor } = await paginate(returned as any, page, walkOf(list))
  const toItem = list.toItem as ((row: unknown) => unknown) | undefined
  return { items: toItem ? rows.map((row) => toItem(row)) : rows, nextCursor }
}
