// The five operations of a plain resource (list, read, create, update, delete) from one declaration, named,
// scoped, recorded and answered by the API's conventions, so each area writes only what is its own: the queries.

import type { Static, TObject } from '@sinclair/typebox'
import type { ProblemRef } from '../problem/problem-code.ts'
import type { Trx } from '../store/store.ts'
import type { EventDefinition } from './define-plugin.ts'
import {
  defineRoute,
  type HandlerInput,
  type IdParams,
  type ListDeclaration,
  type RouteDefinition,
} from './route.ts'

type ParamsOf<P extends IdParams> = { readonly [K in keyof P]: string }
type Input<B, Q, P extends IdParams> = HandlerInput<B, Q, ParamsOf<P>, true>
type Change<B, P extends IdParams> = Input<B, undefined, P> & { readonly trx: Trx }
type Returns<T> = Promise<T> | T
type ListHandler<LQ extends TObject, P extends IdParams> = (
  input: Input<undefined, Static<LQ>, P>,
) => Returns<unknown>
type RemoveHandler<Item extends TObject, P extends IdParams> = (
  input: Change<undefined, P>,
) => Returns<Static<Item>>

/** A plain resource, declared once; see {@link resourceRoutes}. */
export interface ResourceDeclaration<
  Item extends TObject,
  P extends IdParams,
  K extends IdParams,
  LQ extends TObject,
  CB extends TObject,
  UB extends TObject,
> {
  /** The item schema, named (`$id: 'CronJob'`): the operations are `listCronJobs`, `getCronJob`, `createCronJob`, …. */
  readonly item: Item
  /** The resource part of its audit actions (`cron.create`) and of its events (`cron.created`), which the plugin declares. */
  readonly name: string
  /** The collection's path below the API base (`/sites/:id/cron-jobs`) and its id parameters (`{ id: 'site' }`). */
  readonly path: string
  readonly params?: P
  /** The item's own id parameter, added to the path: `{ cronJobId: 'cron' }`. */
  readonly key: K
  /** Reading (list and read) and changing (create, update, delete) each need one scope. */
  readonly scopes: { readonly read: string; readonly manage: string }
  /**
   * `GET <path>`: returns the query of the items, paged by the kernel; the handler alone, or with its filters
   * (`query`), a row mapping (`toItem`) and key column.
   */
  readonly list?:
    | ListHandler<LQ, P>
    | {
        readonly query?: LQ
        readonly toItem?: ListDeclaration['toItem']
        readonly key?: string
        readonly handler: ListHandler<LQ, P>
      }
  /** `GET <path>/<key>`: the item, or 404 (`findVisible`). */
  readonly read?: (input: Input<undefined, undefined, P & K>) => Returns<Static<Item>>
  /**
   * `POST <path>`: in one transaction (`trx`) with its audit entry and `<name>.created`; answers 201 with
   * `Location`. Idempotent unless said otherwise.
   */
  readonly create?: {
    readonly body: CB
    readonly problems?: readonly ProblemRef[]
    readonly idempotent?: boolean
    handler(input: Change<Static<CB>, P>): Returns<Static<Item>>
  }
  /** `PATCH <path>/<key>`: like create, with `<name>.updated`; answers 200 with the item. */
  readonly update?: {
    readonly body: UB
    readonly problems?: readonly ProblemRef[]
    handler(input: Change<Static<UB>, P & K>): Returns<Static<Item>>
  }
  /**
   * `DELETE <path>/<key>`: returns the item as it was (recorded with `<name>.deleted`); answers 204. The handler
   * alone, or with its problems.
   */
  readonly remove?:
    | RemoveHandler<Item, P & K>
    | { readonly problems?: readonly ProblemRef[]; readonly handler: RemoveHandler<Item, P & K> }
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
>(resource: ResourceDeclaration<Item, P, K, LQ, CB, UB>): RouteDefinition[] {
  const noun = (resource.item as { $id?: string }).$id
  if (!noun) throw new Error(`Resource at ${resource.path}: its item schema needs an $id`)
  const params = (resource.params ?? {}) as P
  const one = { ...params, ...resource.key }
  const itemPath = `${resource.path}/${Object.keys(resource.key).map((name) => `:${name}`)[0]}`
  const change = (verb: string, event: string) => ({
    action: `${resource.name}.${verb}`,
    event: `${resource.name}.${event}`,
  })
  const { read, create, update } = resource
  const list = typeof resource.list === 'function' ? { handler: resource.list } : resource.list
  const remove = typeof resource.remove === 'function' ? { handler: resource.remove } : resource.remove
  const { read: readScope, manage } = resource.scopes
  const routes: RouteDefinition[] = []
  if (list)
    routes.push(
      defineRoute({
        method: 'GET',
        path: resource.path,
        operationId: `list${noun}s`,
        scope: readScope,
        params,
        ...('query' in list && list.query ? { query: list.query } : {}),
        list: {
          item: resource.item,
          ...('toItem' in list ? { toItem: list.toItem } : {}),
          ...('key' in list ? { key: list.key } : {}),
        },
        handler: list.handler as never,
      }),
    )
  if (read)
    routes.push(
      defineRoute({
        ...{ method: 'GET', path: itemPath, operationId: `get${noun}`, scope: readScope, params: one },
        responses: { 200: resource.item },
        handler: read as never,
      }),
    )
  if (create)
    routes.push(
      defineRoute({
        ...{ method: 'POST', path: resource.path, operationId: `create${noun}`, scope: manage, params },
        ...{ body: create.body, idempotent: create.idempotent ?? true, problems: create.problems ?? [] },
        ...{ change: change('create', 'created'), responses: { 201: resource.item } },
        handler: create.handler as never,
      }),
    )
  if (update)
    routes.push(
      defineRoute({
        ...{ method: 'PATCH', path: itemPath, operationId: `update${noun}`, scope: manage, params: one },
        ...{ body: update.body, problems: update.problems ?? [], change: change('update', 'updated') },
        responses: { 200: resource.item },
        handler: update.handler as never,
      }),
    )
  if (remove)
    routes.push(
      defineRoute({
        ...{ method: 'DELETE', path: itemPath, operationId: `delete${noun}`, scope: manage, params: one },
        ...{ problems: ('problems' in remove && remove.problems) || [], change: change('delete', 'deleted') },
        responses: { 204: { description: `The ${noun} is deleted.` } },
        handler: remove.handler as never,
      }),
    )
  return routes
}

/**
 * The events of a plain resource: `<name>.created`, `<name>.updated`, `<name>.deleted`, each carrying the item.
 * @example events: resourceEvents('cron', CronJob, 'A scheduled task')
 */
export function resourceEvents(name: string, item: TObject, what: string): EventDefinition[] {
  return ['created', 'updated', 'deleted'].map((verb) => ({
    kind: `${name}.${verb}`,
    description: `${what} was ${verb}.`,
    payload: item,
  }))
}
