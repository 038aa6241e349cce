// A list whose rows come from outside the store (a node's directory), paged by the kernel like any other list.

import type { ListSource } from './prepared-list.ts'

/**
 * A list read by `read`, for a list route's handler to return: `read(after, limit)` answers at most `limit` rows
 * whose key (the route's `list.key`) comes after `after` (from the first when undefined), in key order. The kernel
 * checks `limit` and `cursor` and signs the cursor as for a query, so such a list refuses what every list refuses.
 * @example return keyedList((after, limit) => node.list(path, after ?? null, limit))
 */
export function keyedList<Row>(
  read: (after: string | undefined, limit: number) => Promise<readonly Row[]>,
): ListSource<Row> {
  // Declared list filters are for queries: the reader narrows what it reads itself.
  return { filters: {}, run: async (_keyset, page) => [...(await read(page.after, page.limit))] }
}
