// The five operations of a plain resource (list, read, create, update, delete) from one declaration, named,
// scoped, recorded and answered by the API's conventions, so each area writes only what is its own: the queries.

import type { Static, TObject } from '@sinclair/typebox'
import type { SelectQueryBuilder } from 'kysely'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'
import type { ProblemRef } from '../problem/problem-code.ts'
import type { Db, Trx } from '../store/store.ts'
import type { TenantView } from '../tenancy/tenant-view.ts'
import type { EventDefinition } from './define-plugin.ts'
import {
  type ChangeDeclaration,
  defineRoute,
  type HandlerInput,
  type IdParams,
  type ListDeclaration,
  type ListFilter,
  type RouteDefinition,
  type RouteResponse,
} from './route.ts'

type ParamsOf<P extends IdParams> = { readonly [K in keyof P]: string }
type Returns<T> = Promise<T> | T
/** What every operation's handler receives: the request's input, and the parent the resource hangs under. */
type Input<B, Q, P extends IdParams, Parent> = HandlerInput<B, Q, ParamsOf<P>, true> & {
  /** The parent found by the declaration's `parent` (in the caller's view), or undefined without one. */
  readonly parent: Parent
}
/** What a change's handler receives besides: its transaction, what `prepare` made, and the row it changes. */
type Change<B, P extends IdParams, Parent, Row, Prepared> = Input<B, undefined, P, Parent> & {
  readonly trx: Trx
  readonly prepared: Prepared
  /** The row the request names, found in the caller's view (and under its parent) with `table`; else undefined. */
  readonly row: Row
}

/** A table's rows as a declaration reads them (a `visibleTable`): its row type is the handlers' `row`. */
interface RowsOf<Row> {
  // biome-ignore lint/suspicious/noExplicitAny: the rows of any plugin's tables
  visible(db: Db, view: TenantView): SelectQueryBuilder<any, any, Row>
  find(db: Db, view: TenantView, id: string, options?: { readonly lock?: boolean }): Promise<Row>
}

/** How a change of the resource is recorded, when the convention (`<name>.<verb>`, `<name>.<pastTense>`) does not fit. */
export interface ResourceChange extends Partial<Omit<ChangeDeclaration, 'event'>> {
  /** The event kind; null for none (only the audit entry). Default `<name>.created`, `.updated`, `.deleted`. */
  readonly event?: string | null
}

/** What any operation may say of itself beyond the convention. */
interface OperationText {
  /** One line for the reference; default the operation id in words (`createCronJob`: "Create cron job"). */
  readonly summary?: string
  readonly description?: string
}

/** What a change operation declares besides its handler. */
interface ChangeOperation<B extends TObject | undefined, Prepared, Params = Readonly<Record<string, string>>>
  extends OperationText {
  readonly body?: B
  readonly problems?: readonly ProblemRef[]
  /** The success responses, when they are not the convention's (a create answering the item and a secret). */
  readonly responses?: Readonly<Record<number, RouteResponse | TObject>>
  /** The answer shows a secret once: sent with `Cache-Control: no-store`. */
  readonly showsSecret?: boolean
  readonly record?: ResourceChange
  /** Work before the change's transaction (see `ChangeRoute.prepare`). */
  prepare?(
    input: HandlerInput<B extends TObject ? Static<B> : undefined, undefined, Params, true>,
  ): Returns<Prepared>
  /** Undoes `prepare`'s work beyond the store when the change then fails. */
  undo?(prepared: Prepared, error: unknown): Returns<void>
}

/** A plain resource, declared once; see {@link resourceRoutes}. */
export interface ResourceDeclaration<
  Item extends TObject,
  P extends IdParams,
  K extends IdParams,
  LQ extends TObject,
  CB extends TObject,
  UB extends TObject,
  Parent,
  Row,
  CP,
  UP,
  RP,
> {
  /** The item schema, named (`$id: 'CronJob'`): the operations are `listCronJobs`, `getCronJob`, `createCronJob`, …. */
  readonly item: Item
  /** The resource part of its audit actions (`cron.create`) and of its events (`cron.created`), which the plugin declares. */
  readonly name: string
  /** The item in words, for the answers' descriptions ("The new cron job."). Default its `$id` in lower-case words. */
  readonly noun?: string
  /** The collection's path below the API base (`/sites/:id/cron-jobs`) and its id parameters (`{ id: 'site' }`). */
  readonly path: string
  readonly params?: P
  /** The item's own id parameter, added to the path: `{ cronJobId: 'cron' }`. */
  readonly key: K
  /**
   * Reading (list and read) and changing (create, update, delete) each need one scope; creating may need its own
   * (platform staff create brands, a brand's staff change theirs).
   */
  readonly scopes: { readonly read: string; readonly manage: string; readonly create?: string }
  /** A staff area: tokens limited to one customer are refused (403 `staff_only`). */
  readonly staff?: boolean
  /**
   * The resource this one hangs under (the site of a cron job), as the parent plugin's directory finds it in the
   * caller's view: every operation finds it first (through the change's `trx` on changes), answers 404 when it is
   * not there, and hands it to the handler as `parent`.
   * @example parent: (db, view, params) => sites.find(db, view, params.id)
   */
  readonly parent?: (db: Db, view: TenantView, params: ParamsOf<P>) => Promise<Parent | null | undefined>
  /**
   * The resource's table as views reach it (`visibleTable`), and how a row is an item: `list` and `read` then need
   * no handler, and `update` and `remove` receive the row the request names as `row` (404 when it is not in the
   * caller's view, or not under the parent: `parentColumn` holds the parent's id), locked until the change's
   * transaction ends with `lock` (a change of what hangs on the row made meanwhile waits, and is seen).
   */
  readonly table?: {
    readonly rows: RowsOf<Row>
    readonly toItem?: (row: Row) => Static<Item>
    readonly parentColumn?: string
    readonly lock?: boolean
  }
  /**
   * `GET <path>`: the query of the items (paged by the kernel), narrowed by the declared `filters` of its `query`;
   * without a handler, the table's rows in view (under the parent).
   */
  readonly list?:
    | ((input: Input<undefined, Static<LQ>, P, Parent>) => Returns<unknown>)
    | (OperationText & {
        readonly query?: LQ
        readonly filters?: Readonly<Record<string, ListFilter>>
        readonly toItem?: ListDeclaration['toItem']
        readonly key?: string
        readonly order?: 'asc' | 'desc'
        readonly handler?: (input: Input<undefined, Static<LQ>, P, Parent>) => Returns<unknown>
      })
  /** `GET <path>/<key>`: the item, or 404; without a handler, the table's row in view (under the parent). */
  readonly read?:
    | ((input: Input<undefined, undefined, P & K, Parent>) => Returns<Static<Item>>)
    | (OperationText & {
        /** The 200 response, when it says more than "The <noun>.". */
        readonly responses?: Readonly<Record<number, RouteResponse | TObject>>
        readonly handler?: (input: Input<undefined, undefined, P & K, Parent>) => Returns<Static<Item>>
      })
  /**
   * `POST <path>`: in one transaction (`trx`) with its audit entry and `<name>.created`; answers 201 with
   * `Location`. Idempotent unless said otherwise.
   */
  readonly create?: ChangeOperation<CB, CP, ParamsOf<P>> & {
    /** The JSON body; none for a create that takes none (a shell session). */
    readonly body?: CB
    readonly idempotent?: boolean
    handler(input: Change<Static<CB>, P, Parent, undefined, CP>): Returns<unknown>
  }
  /** `PATCH <path>/<key>`: like create, with `<name>.updated`; answers 200 with the item. */
  readonly update?: ChangeOperation<UB, UP, ParamsOf<P & K>> & {
    readonly body: UB
    handler(input: Change<Static<UB>, P & K, Parent, Row, UP>): Returns<unknown>
  }
  /**
   * `DELETE <path>/<key>`: returns the item as it was (recorded with `<name>.deleted`); answers 204. The handler
   * alone, or with its problems.
   */
  readonly remove?:
    | ((input: Change<undefined, P & K, Parent, Row, undefined>) => Returns<unknown>)
    | (ChangeOperation<undefined, RP, ParamsOf<P & K>> & {
        handler(input: Change<undefined, P & K, Parent, Row, RP>): Returns<unknown>
      })
}

/** A route of the resource, checked by `defineRoute` as any other (its typing is the declaration's above). */
const declared = (route: Record<string, unknown>): RouteDefinition => defineRoute(route as never)

/** `CronJob` in words: `cron job`. */
function wordsOf(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase()
}

/** The change declaration of one operation: the convention, with what the operation says instead. */
function changeOf(name: string, verb: string, pastTense: string, own: ResourceChange | undefined) {
  const { event, ...rest } = own ?? {}
  const kind = event === undefined ? `${name}.${pastTense}` : event
  return {
    action: `${name}.${verb}`,
    ...rest,
    ...(kind === null ? {} : { event: kind }),
  } as ChangeDeclaration
}

/**
 * The operations of a plain resource. Each is an ordinary route (`defineRoute`), so anything the convention does
 * not cover is written as one beside them.
 * @example routes: (context) => resourceRoutes({ item: CronJob, name: 'cron', path: '/sites/:id/cron-jobs', ... })
 */
export function resourceRoutes<
  Item extends TObject,
  P extends IdParams = Record<never, never>,
  K extends IdParams = IdParams,
  LQ extends TObject = TObject,
  CB extends TObject = TObject,
  UB extends TObject = TObject,
  Parent = undefined,
  Row = undefined,
  CP = undefined,
  UP = undefined,
  RP = undefined,
>(resource: ResourceDeclaration<Item, P, K, LQ, CB, UB, Parent, Row, CP, UP, RP>): RouteDefinition[] {
  const id = (resource.item as { $id?: string }).$id
  if (!id) throw new Error(`Resource at ${resource.path}: its item schema needs an $id`)
  const noun = resource.noun ?? wordsOf(id)
  const params = (resource.params ?? {}) as P
  const one = { ...params, ...resource.key }
  // A collection without id parameters of its own has none at all (no 404 of a malformed id to document).
  const collection = resource.params ? { params } : {}
  const keyName = Object.keys(resource.key)[0] ?? 'id'
  const itemPath = `${resource.path}/:${keyName}`
  const common = { ...(resource.staff ? { staff: true } : {}) }
  const found = foundBy(resource as never, keyName)
  const list = typeof resource.list === 'function' ? { handler: resource.list } : resource.list
  const read = typeof resource.read === 'function' ? { handler: resource.read } : resource.read
  const remove = typeof resource.remove === 'function' ? { handler: resource.remove } : resource.remove
  const { create, update } = resource
  const { read: readScope, manage } = resource.scopes
  const text = (operation: OperationText | undefined) => ({
    ...(operation?.summary ? { summary: operation.summary } : {}),
    ...(operation?.description ? { description: operation.description } : {}),
  })
  const changing = (operation: ChangeOperation<TObject | undefined, unknown> | undefined) => ({
    ...text(operation),
    problems: operation?.problems ?? [],
    ...(operation?.showsSecret ? { showsSecret: true } : {}),
    ...(operation?.prepare ? { prepare: operation.prepare } : {}),
    ...(operation?.undo ? { undo: operation.undo } : {}),
  })
  const routes: RouteDefinition[] = []
  if (list)
    routes.push(
      declared({
        ...{ method: 'GET', path: resource.path, operationId: `list${id}s`, scope: readScope, ...collection },
        ...common,
        ...text(list),
        ...('query' in list && list.query ? { query: list.query } : {}),
        list: {
          item: resource.item,
          ...('toItem' in list && list.toItem ? { toItem: list.toItem } : found.toItem),
          ...('key' in list && list.key ? { key: list.key } : {}),
          ...('order' in list && list.order ? { order: list.order } : {}),
          ...('filters' in list && list.filters ? { filters: list.filters } : {}),
        },
        handler: found.listed(list.handler) as never,
      }),
    )
  if (read)
    routes.push(
      declared({
        ...{ method: 'GET', path: itemPath, operationId: `get${id}`, scope: readScope, params: one },
        ...common,
        ...text(read),
        responses: read.responses ?? { 200: { description: `The ${noun}.`, schema: resource.item } },
        handler: found.read(read.handler) as never,
      }),
    )
  if (create)
    routes.push(
      declared({
        ...{ method: 'POST', path: resource.path, operationId: `create${id}`, ...collection },
        scope: resource.scopes.create ?? manage,
        ...common,
        ...changing(create),
        ...{ ...(create.body ? { body: create.body } : {}), idempotent: create.idempotent ?? true },
        change: changeOf(resource.name, 'create', 'created', create.record),
        responses: create.responses ?? {
          201: {
            description: `The new ${noun}.`,
            schema: resource.item,
            headers: { Location: `URL of the ${noun}.` },
          },
        },
        handler: found.changed(create.handler, false) as never,
      }),
    )
  if (update)
    routes.push(
      declared({
        ...{ method: 'PATCH', path: itemPath, operationId: `update${id}`, scope: manage, params: one },
        ...common,
        ...changing(update),
        body: update.body,
        change: changeOf(resource.name, 'update', 'updated', update.record),
        responses: update.responses ?? {
          200: { description: `The ${noun} after the change.`, schema: resource.item },
        },
        handler: found.changed(update.handler, true) as never,
      }),
    )
  if (remove)
    routes.push(
      declared({
        ...{ method: 'DELETE', path: itemPath, operationId: `delete${id}`, scope: manage, params: one },
        ...common,
        ...changing(remove as ChangeOperation<undefined, unknown>),
        change: changeOf(resource.name, 'delete', 'deleted', 'record' in remove ? remove.record : undefined),
        responses: ('responses' in remove && remove.responses) || {
          204: { description: `The ${noun} is deleted.` },
        },
        handler: found.changed(remove.handler as never, true) as never,
      }),
    )
  return routes
}

/** What a handler input carries that the declaration finds for it: the parent, and the row of the table. */
type Found = { view: TenantView; db: Db; trx?: Trx; params: Record<string, string> }
// biome-ignore lint/suspicious/noExplicitAny: handlers of any input
type AnyHandler = ((input: any) => unknown) | undefined

/** Wraps the handlers of a resource so each gets the parent and row the declaration finds, or answers 404. */
function foundBy(
  resource: ResourceDeclaration<
    TObject,
    IdParams,
    IdParams,
    TObject,
    TObject,
    TObject,
    unknown,
    unknown,
    unknown,
    unknown,
    unknown
  >,
  keyName: string,
) {
  const { table } = resource
  const parentOf = async (input: Found) => {
    if (!resource.parent) return undefined
    const parent = await resource.parent(input.trx ?? input.db, input.view, input.params as never)
    if (parent === null || parent === undefined) throw notFound()
    return parent
  }
  const rowOf = async (input: Found, parent: unknown) => {
    if (!table) return undefined
    const lock = { lock: input.trx !== undefined && table.lock === true }
    const id = input.params[keyName] ?? ''
    const row = (await table.rows.find(input.trx ?? input.db, input.view, id, lock)) as Record<
      string,
      unknown
    >
    const parentId = (parent as { id?: unknown } | undefined)?.id
    if (table.parentColumn && row[table.parentColumn] !== parentId) throw notFound()
    return row
  }
  const asItem = (row: unknown) => (table?.toItem ? table.toItem(row as never) : row)
  const missing = (what: string) => () => {
    throw new Error(`Resource at ${resource.path}: ${what} needs a handler or a table`)
  }
  return {
    toItem: table?.toItem ? { toItem: table.toItem as ListDeclaration['toItem'] } : {},
    listed(handler: AnyHandler) {
      if (!handler && !table) return missing('list')
      return async (input: Found) => {
        const parent = await parentOf(input)
        if (handler) return handler({ ...input, parent })
        const rows = table?.rows.visible(input.db, input.view)
        const parentId = (parent as { id?: unknown } | undefined)?.id
        return table?.parentColumn ? rows?.where(table.parentColumn, '=', parentId) : rows
      }
    },
    read(handler: AnyHandler) {
      if (!handler && !table) return missing('read')
      return async (input: Found) => {
        const parent = await parentOf(input)
        if (handler) return handler({ ...input, parent })
        return asItem(await rowOf(input, parent))
      }
    },
    changed(handler: AnyHandler, withRow: boolean) {
      return async (input: Found) => {
        const parent = await parentOf(input)
        const row = withRow ? await rowOf(input, parent) : undefined
        return handler?.({ ...input, parent, row })
      }
    },
  }
}

/** The 404 of a parent or row outside the caller's view: the same as a missing one. */
function notFound(): Problem {
  return new Problem(kernelProblems.not_found)
}

/**
 * The events of a plain resource: `<name>.<verb>` for each verb (by default `created`, `updated`, `deleted`), each
 * carrying the item.
 * @example events: resourceEvents('cron', CronJob, 'A scheduled task')
 * @example events: resourceEvents('dns_zone', DnsZone, 'A DNS zone', ['created', 'deleted'])
 */
export function resourceEvents(
  name: string,
  item: TObject,
  what: string,
  verbs: readonly string[] = ['created', 'updated', 'deleted'],
): EventDefinition[] {
  return verbs.map((verb) => ({
    kind: `${name}.${verb}`,
    description: `${what} was ${verb}.`,
    payload: item,
  }))
}
