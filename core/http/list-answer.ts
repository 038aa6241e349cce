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

/** One page of `returned` for `cursor` and `limit`, as `{ items, nextCursor }`. */
export async function listAnswer(
  list: ListDeclaration,
  returned: unknown,
  page: { cursor: string | undefined; limit: number; binding: string; secret: string },
  route: string,
): Promise<{ items: unknown[]; nextCursor: string | null }> {
  if (!isListable(returned))
    throw new Error(`List route ${route} returned neither a query builder nor a prepared list`)
  const keyColumn = list.key ?? 'id'
  const keyName = keyColumn.slice(keyColumn.lastIndexOf('.') + 1)
  // The row's field of the column's name, or its camelCase (`memberships.user_id` read as `userId`).
  const camelName = keyName.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase())
  const { rows, nextCursor } = await paginate(
    // biome-ignore lint/suspicious/noExplicitAny: the walk reads whatever tables the route's query names
    returned as any,
    page,
    {
      keyColumn,
      keyOf: (row: Record<string, unknown>) => String(row[keyName] ?? row[camelName]),
      order: list.order ?? 'asc',
    },
  )
  const toItem = list.toItem as ((row: unknown) => unknown) | undefined
  return { items: toItem ? rows.map((row) => toItem(row)) : rows, nextCursor }
}
