// A list of the API as a table: pages fetched by cursor (`nextCursor`) and shown one after another, with empty,
// loading and error states.

import { useInfiniteQuery } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { EmptyState, ErrorNotice, Loading } from './states.tsx'

/** One page of a list, as every list of the API answers. */
export interface ListPage<T> {
  readonly items: readonly T[]
  readonly nextCursor?: string | null
}

/** A column: its header and how a row shows in it. */
export interface Column<T> {
  readonly header: string
  readonly cell: (item: T) => ReactNode
}

/** Pass `load` before `rowKey` and `columns`: TypeScript infers the item type from it, in prop order. */
export function CursorTable<T>({
  queryKey,
  load,
  columns,
  caption,
  empty,
  rowKey,
}: {
  queryKey: readonly unknown[]
  load: (cursor: string | undefined) => Promise<ListPage<T>>
  columns: readonly Column<NoInfer<T>>[]
  /** Names the table for screen readers. */
  caption: string
  empty: ReactNode
  rowKey: (item: NoInfer<T>) => string
}) {
  const list = useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam }) => load(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  })
  if (list.isPending) return <Loading />
  if (list.isError) return <ErrorNotice error={list.error} />
  const items = list.data.pages.flatMap((page) => page.items)
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
      {list.hasNextPage ? (
        <button
          type="button"
          className="button secondary"
          onClick={() => void list.fetchNextPage()}
          disabled={list.isFetchingNextPage}
        >
          {list.isFetchingNextPage ? 'Loading…' : 'Load more'}
        </button>
      ) : null}
    </div>
  )
}
