// A list of the API as a table: pages fetched by cursor (`nextCursor`) and shown one after another, with empty,
// loading and error states. The list comes from a client's `list(path, init)`, which keys it by its path.

import { useInfiniteQuery } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import type { ApiList } from '../api/client.ts'
import { EmptyState, ErrorNotice, Loading } from './states.tsx'

/** A column: its header and how a row shows in it. */
export interface Column<T> {
  readonly header: string
  readonly cell: (item: T) => ReactNode
}

/**
 * Pass `list` before `rowKey` and `columns`: TypeScript infers the item type from it, in prop order.
 * @example <CursorTable list={api.list('/api/v1/sites', { params: { query: { status } } })} … />
 */
export function CursorTable<T>({
  list: { queryKey, load },
  columns,
  caption,
  empty,
  rowKey,
  refreshMs,
}: {
  list: ApiList<T>
  columns: readonly Column<NoInfer<T>>[]
  /** Names the table for screen readers. */
  caption: string
  empty: ReactNode
  rowKey: (item: NoInfer<T>) => string
  /** Reads the pages again every so many milliseconds, for a list whose items change by themselves. */
  refreshMs?: number
}) {
  const pages = useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam }) => load(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    refetchInterval: refreshMs,
  })
  if (pages.isPending) return <Loading />
  if (pages.isError) return <ErrorNotice error={pages.error} />
  const items = pages.data.pages.flatMap((page) => page.items)
  if (items.length === 0) return <EmptyState>{empty}</EmptyState>
  return (
    <div className="table-wrap">
      <table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.header} scope="col">
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={rowKey(item)}>
              {columns.map((column) => (
                <td key={column.header}>{column.cell(item)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {pages.hasNextPage ? (
        <button
          type="button"
          className="button secondary"
          onClick={() => void pages.fetchNextPage()}
          disabled={pages.isFetchingNextPage}
        >
          {pages.isFetchingNextPage ? 'Loading…' : 'Load more'}
        </button>
      ) : null}
    </div>
  )
}
