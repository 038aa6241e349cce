// A plain resource as a plugin declares it: its item, path, scopes, parent, table, and what each of its five
// operations says beyond the convention. `resourceRoutes` makes the routes from it.

import type { Static, TObject } from '@sinclair/typebox'
import type { SelectQueryBuilder } from 'kysely'
import type { ProblemRef } from '../problem/problem-code.ts'
import type { Db, Trx } from '../store/store.ts'
import type { TenantView } from '../tenancy/tenant-view.ts'
import type { ChangeDeclaration, CountedMetric } from './change.ts'
import type { ListDeclaration, ListFilter } from './list-declaration.ts'
import type { HandlerInput, IdParams, RouteResponse } from './route.ts'

export type ParamsOf<P extends IdParams> = { readonly [K in keyof P]: string }
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
export interface RowsOf<Row> {
  // biome-ignore lint/suspicious/noExplicitAny: the rows of any plugin's tables
  visible(db: Db, view: TenantView): SelectQueryBuilder<any, any, Row>
  find(db: Db, view: TenantView, id: string, options?: { readonly lock?: boolean }): Promise<Row>
  /** Deletes rows by a column's value (a `visibleTable` has it): what a `remove` without handler does. */
  removeWhere?(db: Db, column: string, value: string): Promise<number>
}

/** Rows that hang on a resource's row by `column` (its id), removed with it by a `remove` without handler. */
export interface ChildRows {
  readonly rows: { removeWhere(db: Db, column: string, value: string): Promise<number> }
  readonly column: string
}

/** How a change of the resource is recorded, when the convention (`<name>.<verb>`, `<name>.<pastTense>`) does not fit. */
export interface ResourceChange extends Partial<Omit<ChangeDeclaration, 'event'>> {
  /** The event kind; null for none (only the audit entry). Default `<name>.created`, `.updated`, `.deleted`. */
  readonly event?: string | null
}

/** What any operation may say of itself beyond the convention. */
export interface OperationText {
  /** One line for the reference; default the operation id in words (`createCronJob`: "Create cron job"). */
  readonly summary?: string
  readonly description?: string
}

/** What a change operation declares besides its handler. */
export interface ChangeOperation<
  B extends TObject | undefined,
  Prepared,
  Params = Readonly<Record<string, string>>,
> extends OperationText {
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

/**
 * The item in another media type (a zone as a BIND zone file): read with the item's scope, its row found in the
 * caller's view (under the parent) or 404, and answered 200 in `contentType` with an `ETag` (304 on
 * `If-None-Match`), as an attachment named `filename` when it says one.
 */
export interface Representation<Row, P extends IdParams, Parent> extends OperationText {
  /** The operation's id; default `get<Item><Name>` (`getDnsZoneZoneFile`). */
  readonly operationId?: string
  /** The 200 response's description. */
  readonly description: string
  /** The answer's media type: `text/plain; charset=utf-8`. */
  readonly contentType: string
  /** The file name a download takes (`Content-Disposition: attachment`). */
  readonly filename?: (row: Row) => string
  /** The answer's body, made from the row (and whatever else it reads through the input's `db`). */
  render(input: Input<undefined, undefined, P, Parent> & { readonly row: Row }): Returns<string | Uint8Array>
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
  /**
   * The resource part of its audit actions (`dns_zone.create`) and of its events (`dns_zone.created`), which the
   * plugin declares. Default its `$id` in snake case (`DnsZone`: `dns_zone`).
   */
  readonly name?: string
  /** The item in words, for the answers' descriptions ("The new cron job."). Default its `$id` in lower-case words. */
  readonly noun?: string
  /** The collection's path below the API base (`/sites/:id/cron-jobs`) and its id parameters (`{ id: 'site' }`). */
  readonly path: string
  readonly params?: P
  /**
   * The item's own id parameter, added to the path: `{ cronJobId: 'cron' }`. Default, for a collection without id
   * parameters whose item is a `resourceItem`, `{ id: <its prefix> }`.
   */
  readonly key?: K
  /**
   * Reading (list and read) and changing (create, update, delete) each need one scope; creating may need its own
   * (platform staff create brands, a brand's staff change theirs).
   */
  readonly scopes: { readonly read: string; readonly manage: string; readonly create?: string }
  /** A staff area: tokens limited to one customer are refused (403 `staff_only`). */
  readonly staff?: boolean
  /**
   * Whose the items are, declared rather than written in the handlers (see `ChangeDeclaration`): `customer`, the
   * create body's field naming the customer (422 `unknown_customer` there unless the caller sees it); `counts`, the
   * plugin's usage metric each item counts for its customer (`customerId`): reserved under the customer's limits
   * by a create, given back by a delete.
   * @example owner: { customer: 'customerId', counts: dnsZonesMetric }
   */
  readonly owner?: { readonly customer?: string; readonly counts?: CountedMetric }
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
   * `children`: the tables whose rows hang on a row by a column holding its id (a zone's records by `zoneId`),
   * which a `remove` without handler deletes with it.
   */
  readonly table?: {
    readonly rows: RowsOf<Row>
    readonly toItem?: (row: Row) => Static<Item>
    readonly parentColumn?: string
    readonly lock?: boolean
    readonly children?: readonly ChildRows[]
  }
  /**
   * Runs in the transaction of every create, update and delete of an item, after its handler, unless it changed
   * nothing (`unchanged(…)`): what each change of an item does to its parent (a zone's serial, raised by every
   * change of its records), written once.
   * @example afterChange: ({ trx, parent }) => raiseSerial(trx, parent)
   */
  readonly afterChange?: (input: { readonly trx: Trx; readonly parent: Parent }) => Returns<unknown>
  /**
   * `GET <path>`: the query of the items (paged by the kernel), narrowed by the declared `filters` of its `query`;
   * without a handler, the table's rows in view (under the parent). Without a `query`, the filters name fields of
   * the item, and the query is made of them (`filters: { type: 'type' }`: `?type=`, checked as the item's `type`);
   * a resource whose `owner` names its `customer` is filtered by it as well (`?customerId=`).
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
  /**
   * `GET <path>/<key>`: the item, or 404; without a handler, the table's row in view (under the parent). `as`: the
   * item in other media types, each at `GET <path>/<key>/<name>` (a zone as a BIND zone file), see
   * {@link Representation}.
   */
  readonly read?:
    | ((input: Input<undefined, undefined, P & K, Parent>) => Returns<Static<Item>>)
    | (OperationText & {
        /** The 200 response, when it says more than "The <noun>.". */
        readonly responses?: Readonly<Record<number, RouteResponse | TObject>>
        readonly handler?: (input: Input<undefined, undefined, P & K, Parent>) => Returns<Static<Item>>
        readonly as?: Readonly<Record<string, Representation<Row, P & K, Parent>>>
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
   * alone, or with its problems; without a handler (`remove: {}`), the kernel deletes the row and its `children`
   * from the table. A resource the kernel removes whose `owner` names its `customer` (a column of its table) and
   * whose path has no parameters also goes with its customer: the customer's deletion job removes each of its
   * rows as this route does (audit entry, `<name>.deleted`, the usage it counts), nothing written by the plugin.
   */
  readonly remove?:
    | ((input: Change<undefined, P & K, Parent, Row, undefined>) => Returns<unknown>)
    | (ChangeOperation<undefined, RP, ParamsOf<P & K>> & {
        handler?(input: Change<undefined, P & K, Parent, Row, RP>): Returns<unknown>
      })
}
