// A resource's pages declared rather than written: its list (with a create form, rows linked to their pages and
// deleted from the table) and an item's page (the way back, its heading and downloads, the lists under it), typed
// by the plugin's generated `paths` and completed from the served document (forms' fields, the scopes that guard
// forms and delete buttons). What a declaration cannot say, a page of its own says (`item: { render }`).

import { useQuery } from '@tanstack/react-query'
import { Fragment, type ReactNode } from 'react'
import { useApiDocument } from '../api/api-document.ts'
import { type ApiClient, type ApiList, type ApiQuery, apiUrl } from '../api/client.ts'
import { type OpenApiDocument, operationScope } from '../api/operations.ts'
import type { Audience, ConsolePagesModule, ConsoleRoute, NavEntry } from '../console-pages.ts'
import { Link, navigate } from '../router.tsx'
import { type Column, CursorTable, type RowRemoval } from './cursor-table.tsx'
import { type BodyOf, type CreatedOf, type FieldChanges, OperationForm } from './operation-form.tsx'
import { Breadcrumbs, PageHeader, Section } from './page.tsx'
import { ErrorNotice, Loading } from './states.tsx'

type Json<R> = R extends { content: { 'application/json': infer J } } ? J : never
/** What the GET at `K` answers. */
type Read<P, K extends keyof P> = P[K] extends { get: { responses: { 200: infer R } } } ? Json<R> : never
type ItemOf<T> = T extends { readonly items: readonly (infer I)[] } ? I : never
/** The paths of `P` answering a GET. */
type ReadPath<P> = { [K in keyof P]: P[K] extends { get: unknown } ? K : never }[keyof P] & string
/** The paths of `P` answering a GET with a list (`{ items, nextCursor }`). */
type ListPath<P> = { [K in keyof P]: [ItemOf<Read<P, K>>] extends [never] ? never : K }[keyof P] & string

/** The paths of `P` one parameter below `L` that take a DELETE (`/api/v1/dns-zones/{id}/records/{recordId}`). */
type DeletePath<P, L extends string> = {
  [K in keyof P]: K extends `${L}/{${string}}` ? (P[K] extends { delete: unknown } ? K : never) : never
}[keyof P]

/** A create form under a list: the POST at the list's path (see {@link OperationForm}). */
export interface ListCreate<Body, Created> {
  /** The form's heading: `New zone`. */
  readonly title: string
  readonly submitLabel: string
  /** Changes to the fields the operation's body gives the form (a label or hint of the page's own, `false`). */
  readonly fields?: FieldChanges<Body>
  /**
   * The page opened with what was created. Default: its item page when the pages declare one (on a list page),
   * else none: the form clears itself for the next one.
   */
  readonly open?: (created: Created) => string
}

interface ListOf<P, L extends ListPath<P>> {
  /** The list's path in the API: `/api/v1/dns-zones`, or under an item `/api/v1/dns-zones/{id}/records`. */
  readonly read: L
  /** The page's heading (a list page) or its section's (under an item), and the table's caption. */
  readonly title: string
  /** A list page's line under its heading. */
  readonly subtitle?: ReactNode
  /** What an empty list says. */
  readonly empty: ReactNode
  /** On a list page with item pages, the first column's text links to the row's page. */
  readonly columns: readonly Column<ItemOf<Read<P, L>>>[]
  /**
   * A delete button on each row (twice pressed, see {@link RowRemoval}): the DELETE at the list's path and the
   * row's id, for callers holding its scope; `label` is the row in words (`A www`).
   */
  readonly remove?: [DeletePath<P, L>] extends [never]
    ? never
    : { readonly label: (item: ItemOf<Read<P, L>>) => string }
  /** Only for a list whose path takes a POST. */
  readonly create?: P[L] extends { post: unknown } ? ListCreate<BodyOf<P, L>, CreatedOf<P, L>> : never
}
/** A list of the API shown as a table, with its create form; typed by the list's path `read`. */
export type ResourceList<P> = { [L in ListPath<P>]: ListOf<P, L> }[ListPath<P>]

interface ItemPageOf<P, R extends ReadPath<P>> {
  /** The item's path in the API, its parameters filled with the page's id: `/api/v1/dns-zones/{id}`. */
  readonly read: R
  readonly title: (item: Read<P, R>) => string
  readonly subtitle?: (item: Read<P, R>) => ReactNode
  /** A link that downloads what a GET answers (a file, not JSON): `{ path: '…/{id}/zone-file', label }`. */
  readonly download?: { readonly path: ReadPath<P>; readonly label: string }
  /** More actions beside the heading. */
  readonly actions?: (item: Read<P, R>) => ReactNode
  /** Lists under the item (each titled, with its delete buttons and create form). */
  readonly sections?: readonly ResourceList<P>[]
}
/** An item's page: declared (typed by its path `read`), or a page of its own given the id. */
export type ResourceItem<P> =
  | { [R in ReadPath<P>]: ItemPageOf<P, R> }[ReadPath<P>]
  | { readonly render: (params: { readonly id: string }) => ReactNode }

/** A resource's pages: at `path` its list, at `path/:id` an item's page. */
export interface ResourcePages<P> {
  /** The list page's app path: `/dns-zones`. */
  readonly path: string
  /** The scope without which the pages show nothing (and the navigation entry is not shown). */
  readonly scope?: string
  /** Who the pages are for. Default `both`. */
  readonly audience?: Audience
  /** The navigation entry opening the list, when it has one. */
  readonly navigation?: Pick<NavEntry, 'group' | 'label' | 'order'>
  readonly list: ResourceList<P>
  readonly item?: ResourceItem<P>
}

/** A row: whatever the list's items are, they have an id. */
type Row = { readonly id: string }
/** The declarations as the pages read them, once the types checked them. */
interface LooseList {
  readonly read: string
  readonly title: string
  readonly subtitle?: ReactNode
  readonly empty: ReactNode
  readonly columns: readonly Column<Row>[]
  readonly remove?: { readonly label: (item: Row) => string }
  readonly create?: ListCreate<Record<string, unknown>, Row>
}
interface LooseItem {
  readonly read: string
  readonly title: (item: unknown) => string
  readonly subtitle?: (item: unknown) => ReactNode
  readonly download?: { readonly path: string; readonly label: string }
  readonly actions?: (item: unknown) => ReactNode
  readonly sections?: readonly LooseList[]
}

/** The typed client's reads and DELETE, as the pages call them with paths the declarations typed. */
interface LooseClient {
  query(path: string, init: { params: { path: Record<string, string> } }): ApiQuery<unknown>
  list(path: string, init: { params: { path: Record<string, string> } }): ApiList<unknown>
  DELETE(
    path: string,
    init: { params: { path: Record<string, string> } },
  ): Promise<{ error?: unknown; response: Response }>
}
const loose = (api: unknown) => api as LooseClient

/** Every parameter of an item's path filled with the item's id (`{id}`, whatever its name). */
const paramsOf = (template: string, id: string): Record<string, string> =>
  Object.fromEntries([...template.matchAll(/\{([^}]+)\}/g)].map((match) => [match[1] ?? '', id]))

const filled = (template: string, params: Record<string, string>) =>
  template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''))

/** The DELETE of a list's rows: the document's path one parameter below the list's, and its scope. */
function removalOf(document: OpenApiDocument, read: string) {
  const path = Object.keys(document.paths).find(
    (candidate) =>
      candidate.startsWith(`${read}/{`) &&
      /^\/\{[^}/]+\}$/.test(candidate.slice(read.length)) &&
      document.paths[candidate]?.delete,
  )
  if (!path) throw new Error(`The API document has no DELETE ${read}/{…} to remove rows of ${read} with`)
  return { path, row: path.slice(read.length + 2, -1), scope: operationScope(document, 'delete', path) ?? '' }
}

/** What a list's table and its create form are given: the list, its path's parameters, where a row's page is. */
interface ListPartProps {
  api: unknown
  list: LooseList
  params: Record<string, string>
  itemPath?: (item: Row) => string
}

/** A list's table; `itemPath` is where a row's page is, if anywhere. */
function ResourceTable({ api, list, params, itemPath }: ListPartProps) {
  const document = useApiDocument(Boolean(list.remove))
  if (list.remove && document.isPending) return <Loading />
  if (list.remove && document.isError) return <ErrorNotice error={document.error} />
  const linked = list.columns.map((column, index) =>
    index === 0 && itemPath
      ? { ...column, cell: (item: Row) => <Link to={itemPath(item)}>{column.cell(item)}</Link> }
      : column,
  )
  const removal = list.remove && document.data ? removalOf(document.data, list.read) : null
  const remove: RowRemoval<Row> | undefined =
    removal && list.remove
      ? {
          scope: removal.scope,
          label: list.remove.label,
          run: (item) =>
            loose(api).DELETE(removal.path, { params: { path: { ...params, [removal.row]: item.id } } }),
        }
      : undefined
  return (
    <CursorTable
      list={loose(api).list(list.read, { params: { path: params } }) as ApiList<Row>}
      caption={list.title}
      empty={list.empty}
      columns={linked}
      remove={remove}
    />
  )
}

/** A list's create form, if it has one; what was created opens at `open`, else at `itemPath`, else nowhere. */
function ResourceCreate({ api, list, params, itemPath }: ListPartProps) {
  if (!list.create) return null
  const open = list.create.open ?? itemPath
  return (
    <OperationForm
      api={api as ApiClient<Record<string, { post: { requestBody: never } }>>}
      path={list.read}
      params={params}
      title={list.create.title}
      submitLabel={list.create.submitLabel}
      fields={list.create.fields as FieldChanges<never>}
      onCreated={open ? (created) => navigate(open(created as Row)) : undefined}
    />
  )
}

/** An item's page: the way back, its heading (with its download and actions), then its sections. */
function ResourceItemPage({
  api,
  spec,
  back,
  id,
}: {
  api: unknown
  spec: LooseItem
  back: { to: string; label: string }
  id: string
}) {
  const item = useQuery(loose(api).query(spec.read, { params: { path: paramsOf(spec.read, id) } }))
  if (item.isPending) return <Loading />
  if (item.isError) return <ErrorNotice error={item.error} />
  const download = spec.download
    ? filled(spec.download.path, paramsOf(spec.download.path, id)).replace(/^\/api\/v1/, '')
    : null
  const actions = [
    download ? (
      <a key="download" className="button secondary" href={apiUrl(download)} download>
        {spec.download?.label}
      </a>
    ) : null,
    spec.actions?.(item.data) ?? null,
  ].filter(Boolean)
  return (
    <>
      <Breadcrumbs to={back.to} label={back.label} />
      <PageHeader
        title={spec.title(item.data)}
        subtitle={spec.subtitle?.(item.data)}
        actions={actions.length > 0 ? actions : undefined}
      />
      {(spec.sections ?? []).map((section) => (
        <Fragment key={section.read}>
          <Section title={section.title}>
            <ResourceTable api={api} list={section} params={paramsOf(section.read, id)} />
          </Section>
          <ResourceCreate api={api} list={section} params={paramsOf(section.read, id)} />
        </Fragment>
      ))}
    </>
  )
}

/**
 * A console module of a resource's pages, declared: at `path` the list (heading, table, create form), at
 * `path/:id` the item's page, both guarded by `scope` and `audience`, with a navigation entry when given one.
 * Paths, columns and field names are checked against the plugin's `paths`; the forms' fields and the scopes of
 * forms and delete buttons come from the served document.
 * @example export default resourcePages(api, { path: '/dns-zones', scope: 'dns:read', list: { read: '/api/v1/dns-zones', title: 'DNS zones', empty: 'No zones yet.', columns: [{ header: 'Zone', cell: (zone) => zone.name }] } })
 */
export function resourcePages<P extends {}>(api: ApiClient<P>, pages: ResourcePages<P>): ConsolePagesModule {
  const { path, scope, audience = 'both', navigation, item } = pages
  const guard = { ...(scope ? { scope } : {}), audience }
  const itemPath = item ? (row: Row) => `${path}/${encodeURIComponent(row.id)}` : undefined
  const list = pages.list as unknown as LooseList
  const routes: ConsoleRoute[] = [
    {
      path,
      ...guard,
      render: () => (
        <>
          <PageHeader title={list.title} subtitle={list.subtitle} />
          <ResourceTable api={api} list={list} params={{}} itemPath={itemPath} />
          <ResourceCreate api={api} list={list} params={{}} itemPath={itemPath} />
        </>
      ),
    },
  ]
  if (item)
    routes.push({
      path: `${path}/:id`,
      ...guard,
      render: ({ id = '' }) =>
        'render' in item ? (
          item.render({ id })
        ) : (
          <ResourceItemPage
            key={id}
            api={api}
            spec={item as unknown as LooseItem}
            back={{ to: path, label: list.title }}
            id={id}
          />
        ),
    })
  const entries = navigation ? [{ ...navigation, to: path, scope: scope ?? null, audience }] : []
  return { routes, navigation: entries }
}
