// A list of the API as a table: pages fetched by cursor (`nextCursor`) and shown one after another, with empty,
// loading and error states. The list comes from a client's `list(path, init)`, which keys it by its path.

import { useInfiniteQuery } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { type ApiList, unwrap } from '../api/client.ts'
import { useSession } from '../session.tsx'
import { ActionError, useAction } from './action.tsx'
import { ConfirmButton } from './confirm-button.tsx'
import { EmptyState, ErrorNotice, Loading } from './states.tsx'

/** A column: its header and how a row shows in it. */
export interface Column<T> {
  readonly header: string
  readonly cell: (item: T) => ReactNode
  /** Shown to staff only (whose a row is, which a customer's own people know). */
  readonly staff?: boolean
}

/**
 * A delete button on each row for callers holding `scope`, pressed twice ("Delete <label>", then "Confirm delete
 * <label>"); its refusal shows above the table, and the client reads the list again after it by itself.
 */
export interface RowRemoval<T> {
  readonly scope: string
  /** The row in words, for the buttons' names: `A www`. */
  readonly label: (item: T) => string
  /** The API call that deletes the row. */
  readonly run: (item: T) => Promise<{ error?: unknown; response: Response }>
}

/** The row's key when the table is given none: its `id`. */
const idOf = (item: unknown) => String((item as { id?: unknown }).id)

/**
 * Pass `list` before `rowKey` and `columns`: TypeScript infers the item type from it, in prop order.
 * @example <CursorTable list={api.list('/api/v1/sites', { params: { query: { status } } })} … />
 */
export function CursorTable<T>({
  list: { queryKey, load },
  columns,
  caption,
  empty,
  rowKey = idOf,
  refreshMs,
  remove,
}: {
  list: ApiList<T>
  columns: readonly Column<NoInfer<T>>[]
  /** Names the table for screen readers. */
  caption: string
  empty: ReactNode
  /** Default: the item's `id`. */
  rowKey?: (item: NoInfer<T>) => string
  /**
   * Reads the pages again every so many milliseconds, for a list whose items change by themselves; a function of the
   * items shown answers it (false: not now), so a list reads again only while some item is in flight.
   * @example refreshMs={(sites) => (sites.some((site) => site.status === 'provisioning') ? 3000 : false)}
   */
  refreshMs?: number | ((items: readonly NoInfer<T>[]) => number | false)
  remove?: RowRemoval<NoInfer<T>>
}) {
  const { can, staff } = useSession()
  // Called only by the buttons, which exist only with `remove`.
  const removal = useAction((item: T) => unwrap((remove as RowRemoval<T>).run(item)))
  const actions: Column<T>[] =
    remove && can(remove.scope)
      ? [
          {
            header: 'Actions',
            cell: (item) => (
              <ConfirmButton
                confirmLabel={`Confirm delete ${remove.label(item)}`}
                onConfirm={() => removal.mutate(item)}
                disabled={removal.isPending}
              >
                Delete {remove.label(item)}
              </ConfirmButton>
            ),
          },
        ]
      : []
  const pages = useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam }) => load(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    refetchInterval:
      typeof refreshMs === 'function'
        ? (query) => refreshMs(query.state.data?.pages.flatMap((page) => page.items) ?? [])
        : refreshMs,
  })
  if (pages.isPending) return <Loading />
  if (pages.isError) return <ErrorNotice error={pages.error} />
  const items = pages.data.pages.flatMap((page) => page.items)
  if (items.length === 0) return <EmptyState>{empty}</EmptyState>
  const shown = [...columns.filter((column) => staff || !column.staff), ...actions]
  return (
    <div className="table-wrap">
      <ActionError action={removal} />
      <table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {shown.map((column) => (
              <th key={column.header} scope="col">
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={rowKey(item)}>
              {shown.map((column) => (
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
