// The five operations of a plain resource (list, read, create, update, delete) from one declaration, named,
// scoped, recorded and answered by the API's conventions, so each area writes only what is its own: the queries.

import { type TObject, type TSchema, Type } from '@sinclair/typebox'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'
import type { Db, Trx } from '../store/store.ts'
import type { TenantView } from '../tenancy/tenant-view.ts'
import { type ChangeDeclaration, Recorded } from './change.ts'
import type { CustomerCascade } from './customer-cascade.ts'
import type { EventDefinition } from './define-plugin.ts'
import type { ListDeclaration, ListFilter } from './list-declaration.ts'
import type {
  ChangeOperation,
  OperationText,
  Representation,
  ResourceChange,
  ResourceDeclaration,
} from './resource-declaration.ts'
import { prefixOf } from './resource-item.ts'
import { defineRoute, type IdParams, Reply, type RouteDefinition } from './route.ts'

export type { Representation, ResourceChange, ResourceDeclaration } from './resource-declaration.ts'

/** A route of the resource, checked by `defineRoute` as any other (its typing is the declaration's above). */
const declared = (route: Record<string, unknown>): RouteDefinition => defineRoute(route as never)

/** `zone-file` as a part of an operation id: `ZoneFile`. */
function pascalOf(name: string): string {
  return name.replace(/(^|[-_])([a-z0-9])/g, (_match, _dash, letter: string) => letter.toUpperCase())
}

/** `DnsZone` in snake case: `dns_zone`. */
function snakeOf(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase()
}

/** `CronJob` in words: `cron job`. */
function wordsOf(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase()
}

/** The change declaration of one operation: the convention, with what the operation says instead. */
function changeOf(
  name: string,
  verb: string,
  pastTense: string,
  own: ResourceChange | undefined,
  owned: Partial<ChangeDeclaration> = {},
) {
  const { event, ...rest } = own ?? {}
  const kind = event === undefined ? `${name}.${pastTense}` : event
  return {
    action: `${name}.${verb}`,
    ...owned,
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
  const name = resource.name ?? snakeOf(id)
  const prefix = prefixOf(resource.item)
  const key = resource.key ?? (prefix && !resource.params ? { id: prefix } : undefined)
  if (!key) throw new Error(`Resource at ${resource.path}: declare its key (its id parameter and prefix)`)
  const one = { ...params, ...key }
  // A collection without id parameters of its own has none at all (no 404 of a malformed id to document).
  const collection = resource.params ? { params } : {}
  const keyName = Object.keys(key)[0] ?? 'id'
  const itemPath = `${resource.path}/:${keyName}`
  const common = { ...(resource.staff ? { staff: true } : {}) }
  const found = foundBy(resource as never, keyName)
  const list = typeof resource.list === 'function' ? { handler: resource.list } : resource.list
  const read = typeof resource.read === 'function' ? { handler: resource.read } : resource.read
  const remove = typeof resource.remove === 'function' ? { handler: resource.remove } : resource.remove
  const { create, update } = resource
  const { read: readScope, manage } = resource.scopes
  const { customer, counts } = resource.owner ?? {}
  const created = {
    ...(customer ? { customer } : {}),
    ...(counts ? { usage: { metric: counts, delta: 1 } } : {}),
  }
  const deleted = counts ? { usage: { metric: counts, delta: -1 } } : {}
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
  const filters = listFilters(resource.item, noun, list, customer)
  const routes: RouteDefinition[] = []
  if (list)
    routes.push(
      declared({
        ...{ method: 'GET', path: resource.path, operationId: `list${id}s`, scope: readScope, ...collection },
        ...common,
        ...text(list),
        ...(filters ? { query: filters.query } : {}),
        list: {
          item: resource.item,
          ...('toItem' in list && list.toItem ? { toItem: list.toItem } : found.toItem),
          ...('key' in list && list.key ? { key: list.key } : {}),
          ...('order' in list && list.order ? { order: list.order } : {}),
          ...(filters ? { filters: filters.filters } : {}),
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
  for (const [name, representation] of Object.entries(read?.as ?? {}))
    routes.push(
      declared({
        ...{ method: 'GET', path: `${itemPath}/${name}`, scope: readScope, params: one },
        operationId: representation.operationId ?? `get${id}${pascalOf(name)}`,
        ...common,
        ...text(representation),
        responses: {
          200: { description: representation.description, contentType: representation.contentType },
        },
        handler: found.rendered(representation as never),
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
        change: changeOf(name, 'create', 'created', create.record, created),
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
        change: changeOf(name, 'update', 'updated', update.record),
        responses: update.responses ?? {
          200: { description: `The ${noun} after the change.`, schema: resource.item },
        },
        handler: found.changed(update.handler, true) as never,
      }),
    )
  if (remove) {
    const removal = removalOf(resource as never, customer)
    routes.push(
      declared({
        ...{ method: 'DELETE', path: itemPath, operationId: `delete${id}`, scope: manage, params: one },
        ...common,
        ...changing(remove as ChangeOperation<undefined, unknown>),
        change: changeOf(name, 'delete', 'deleted', 'record' in remove ? remove.record : undefined, deleted),
        responses: ('responses' in remove && remove.responses) || {
          204: { description: `The ${noun} is deleted.` },
        },
        handler: found.changed((remove.handler ?? removal.handler) as never, true) as never,
        ...(!remove.handler && removal.withCustomer ? { removedWithCustomer: removal.withCustomer } : {}),
      }),
    )
  }
  return routes
}

/**
 * The list's query and filters: as declared, with the owner's customer field (`?customerId=`) added to the filters,
 * and, without a declared `query`, one made of the item's fields the filters name (each optional).
 */
function listFilters(
  item: TObject,
  noun: string,
  list: { readonly query?: TObject; readonly filters?: Readonly<Record<string, ListFilter>> } | undefined,
  customer: string | undefined,
): { query: TObject; filters: Readonly<Record<string, ListFilter>> } | undefined {
  if (!list) return undefined
  const byCustomer = customer && (!list.query || customer in list.query.properties)
  const filters = { ...(byCustomer ? { [customer]: customer } : {}), ...list.filters }
  if (Object.keys(filters).length === 0) return list.query ? { query: list.query, filters } : undefined
  if (list.query) return { query: list.query, filters }
  const fields: Record<string, TSchema> = {}
  for (const name of Object.keys(filters)) {
    const field = item.properties[name]
    if (!field)
      throw new Error(`The ${noun} list filters by ${name}, which is no field of its item: declare its query`)
    fields[name] = Type.Optional({ ...field, description: `Only the ${noun}s of this \`${name}\`.` })
  }
  return { query: Type.Object(fields), filters }
}

/**
 * The kernel's removal of a row (a `remove` without handler): its children, then itself, answering the item; and,
 * for a resource its customer owns at the top of the API, that same removal of every row of a deleted customer.
 */
function removalOf(
  resource: AnyResource<Record<string, unknown>>,
  customer: string | undefined,
): { handler: AnyHandler; withCustomer?: CustomerCascade } {
  const { table } = resource
  const rows = table?.rows
  const removeWhere = rows?.removeWhere
  if (!rows || !removeWhere) return { handler: undefined }
  const remove = async (trx: Trx, row: Record<string, unknown>) => {
    const id = String(row.id)
    for (const child of table.children ?? []) await child.rows.removeWhere(trx, child.column, id)
    await removeWhere.call(rows, trx, 'id', id)
    return (table.toItem ? table.toItem(row) : row) as Record<string, unknown>
  }
  const handler = ({ trx, row }: { trx: Trx; row: Record<string, unknown> }) => remove(trx, row)
  if (!customer || resource.params) return { handler }
  const everyone = { kind: 'all' } as const
  const rowsOf = (db: Db, customerId: string) =>
    rows.visible(db, everyone).where(customer, '=', customerId).execute()
  return { handler, withCustomer: { rowsOf, remove } }
}

/** A resource declaration whatever its types, but for its table's rows (`Row`). */
type AnyResource<Row = unknown> = ResourceDeclaration<
  TObject,
  IdParams,
  IdParams,
  TObject,
  TObject,
  TObject,
  unknown,
  Row,
  unknown,
  unknown,
  unknown
>

/** What a handler input carries that the declaration finds for it: the parent, and the row of the table. */
type Found = { view: TenantView; db: Db; trx?: Trx; params: Record<string, string> }
// biome-ignore lint/suspicious/noExplicitAny: handlers of any input
type AnyHandler = ((input: any) => unknown) | undefined

/** Wraps the handlers of a resource so each gets the parent and row the declaration finds, or answers 404. */
function foundBy(resource: AnyResource, keyName: string) {
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
    rendered(representation: Representation<unknown, IdParams, unknown>) {
      if (!table) throw new Error(`Resource at ${resource.path}: a representation needs a table`)
      return async (input: Found) => {
        const parent = await parentOf(input)
        const row = await rowOf(input, parent)
        const body = await representation.render({ ...input, parent, row } as never)
        const named = representation.filename?.(row)
        return new Reply(200, body, named ? { 'content-disposition': `attachment; filename="${named}"` } : {})
      }
    },
    changed(handler: AnyHandler, withRow: boolean) {
      return async (input: Found) => {
        const parent = await parentOf(input)
        const row = withRow ? await rowOf(input, parent) : undefined
        const result = await handler?.({ ...input, parent, row })
        const nothing = result instanceof Recorded && result.audit === null
        if (resource.afterChange && !nothing && input.trx)
          await resource.afterChange({ trx: input.trx, parent })
        return result
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
