// A route as data: what it needs (scope, schemas, problems) is declared once and enforced and documented from there.

import type { Static, TObject, TSchema } from '@sinclair/typebox'
import type { SelectQueryBuilder } from 'kysely'
import type { Caller } from '../auth/caller.ts'
import type { JobRequest } from '../jobs/job-definition.ts'
import type { ListSource } from '../pagination/prepared-list.ts'
import type { ProblemRef } from '../problem/problem-code.ts'
import type { Trx } from '../store/store.ts'
import type { TenantView } from '../tenancy/tenant-view.ts'

/** HTTP methods a route may answer. */
export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** A documented response of an operation. */
export interface RouteResponse {
  readonly description: string
  /** JSON schema of the body; omitted for an empty response (204). */
  readonly schema?: TSchema
  /** Documented response headers (name → description), e.g. `Location`. */
  readonly headers?: Readonly<Record<string, string>>
}

/** An audit entry as a handler writes it; the kernel adds actor, time, request id and address. */
export interface AuditInput {
  /** `<resource>.<verb>`: `site.create`, `customer.update`, `token.revoke`. */
  readonly action: string
  readonly subject: { readonly type: string; readonly id: string }
  readonly customerId: string | null
  /** What changed, without secrets. */
  readonly details?: Readonly<Record<string, unknown>>
}

/** An event as a handler emits it: a kind its plugin declared, the resource as data. */
export interface EventInput {
  readonly kind: string
  readonly customerId: string | null
  readonly data: Readonly<Record<string, unknown>>
}

/** What a handler receives. */
export interface HandlerInput<B, Q, P, Authenticated extends boolean> {
  readonly body: B
  readonly query: Q
  readonly params: P
  /** The caller; null only on public routes. */
  readonly caller: Authenticated extends true ? Caller : Caller | null
  /** The customers the caller may see with the route's scope (with no scope: with any); reads and lists go through it. */
  readonly view: Authenticated extends true ? TenantView : TenantView | null
  readonly request: Request
  readonly requestId: string
  /** The client's address as the host saw it, when known. */
  readonly address: string | null
  /** Writes an audit entry in `trx`, so it commits or rolls back with the change it records. */
  audit(trx: Trx, entry: AuditInput): Promise<void>
  /** Puts an event in the outbox in `trx`; delivered after commit, never lost. Undeclared kinds throw. */
  emit(trx: Trx, event: EventInput): Promise<void>
  /**
   * Starts a job in `trx` (it runs once the transaction commits), recording the caller as who started it;
   * returns the job's id (`job_…`) for the response's `jobId`. Unknown kinds throw.
   */
  enqueueJob(trx: Trx, job: JobRequest): Promise<string>
  /**
   * One page of `query` for this request's `cursor` and `limit` (the route's query schema spreads `pageQuery`),
   * keyset-ordered by `keyColumn`. The cursor handed out is bound to this operation, caller, path and `filters`.
   * `query` is a query builder, or for lists read often a `preparedList(...).of(db, view, filters)`, compiled once.
   */
  page<DB, TB extends keyof DB, Row extends Record<string, unknown>>(
    query: SelectQueryBuilder<DB, TB, Row> | ListSource<Row>,
    options: {
      readonly keyColumn: string
      readonly keyOf: (row: Row) => string
      readonly order?: 'asc' | 'desc'
      readonly filters?: Readonly<Record<string, unknown>>
    },
  ): Promise<{ rows: Row[]; nextCursor: string | null }>
}

/** A response other than a plain 200 with a JSON body. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Readonly<Record<string, string>> = {},
    /** Path below the API base of the resource the reply is about; sent as `Location`. */
    readonly location?: string,
  ) {}

  /** 201 Created with the resource and where it lives: `path` is below the API base (`/sites/site_…`). */
  static created(body: unknown, path: string): Reply {
    return new Reply(201, body, {}, path)
  }

  /** 204 No Content. */
  static noContent(): Reply {
    return new Reply(204, undefined)
  }
}

interface RouteCommon<
  B extends TObject | undefined,
  Q extends TObject | undefined,
  P extends TObject | undefined,
> {
  readonly method: RouteMethod
  /** Path below the API base (`/sites/:id`). */
  readonly path: string
  /** Unique across the panel, camelCase: `createSite`. */
  readonly operationId: string
  readonly summary: string
  readonly description?: string
  readonly params?: P
  readonly query?: Q
  readonly body?: B
  /** Success responses by status. */
  readonly responses: Readonly<Record<number, RouteResponse>>
  /** Refusals specific to this operation, for the docs; the kernel adds the ones every operation can give. */
  readonly problems?: readonly ProblemRef[]
  /**
   * A creating POST that honours `Idempotency-Key`: the same request again within the window gets the first
   * answer (with `Idempotent-Replayed: true`) and creates nothing. Default false.
   */
  readonly idempotent?: boolean
  /** Counts against the strict per-address allowance (login); public routes are otherwise not rate limited. */
  readonly strictRateLimit?: boolean
}

type Input<S> = S extends TSchema ? Static<S> : undefined

/**
 * A credential the kernel does not know, which a public route's handler checks itself (a node's agent token, an
 * external billing system's signed callback), documented as its own OpenAPI security scheme.
 */
export interface RouteCredential {
  /** The security scheme's name in the document, camelCase: `nodeAgentToken`. Not `apiToken` or `session`. */
  readonly name: string
  /** The OpenAPI Security Scheme Object, e.g. `{ type: 'http', scheme: 'bearer', description }`. */
  readonly scheme: Readonly<Record<string, unknown>>
}

/** A route open to anyone: health checks, login. */
export interface PublicRoute<
  B extends TObject | undefined,
  Q extends TObject | undefined,
  P extends TObject | undefined,
> extends RouteCommon<B, Q, P> {
  readonly public: true
  /** The credential its handler checks, if any: documented as the operation's security, not enforced by the kernel. */
  readonly credential?: RouteCredential
  readonly scope?: undefined
  readonly staff?: undefined
  readonly authenticated?: undefined
  handler(input: HandlerInput<Input<B>, Input<Q>, Input<P>, false>): Promise<unknown> | unknown
}

/** A route open to any authenticated caller whatever its scopes (`/me`, logout, listing one's own tokens). */
export interface AuthenticatedRoute<
  B extends TObject | undefined,
  Q extends TObject | undefined,
  P extends TObject | undefined,
> extends RouteCommon<B, Q, P> {
  readonly authenticated: true
  /** Refuse tokens that do not carry `*` or are limited to a customer (sessions always may): minting and revoking tokens. */
  readonly wildcardOnly?: boolean
  readonly scope?: undefined
  readonly public?: undefined
  readonly staff?: undefined
  handler(input: HandlerInput<Input<B>, Input<Q>, Input<P>, true>): Promise<unknown> | unknown
}

/** A route that needs a scope (the default: a route that declares neither a scope nor `public` fails start-up). */
export interface ScopedRoute<
  B extends TObject | undefined,
  Q extends TObject | undefined,
  P extends TObject | undefined,
> extends RouteCommon<B, Q, P> {
  readonly scope: string
  readonly public?: undefined
  readonly authenticated?: undefined
  /** A staff area: tokens limited to one customer are refused with 403 `staff_only`. */
  readonly staff?: boolean
  handler(input: HandlerInput<Input<B>, Input<Q>, Input<P>, true>): Promise<unknown> | unknown
}

/** Any route, as the kernel stores it: inputs are checked against the schemas before the handler sees them. */
export interface RouteDefinition
  extends RouteCommon<TObject | undefined, TObject | undefined, TObject | undefined> {
  readonly public?: true
  readonly credential?: RouteCredential
  readonly authenticated?: true
  readonly wildcardOnly?: boolean
  readonly scope?: string
  readonly staff?: boolean
  handler(input: HandlerInput<unknown, unknown, unknown, boolean>): Promise<unknown> | unknown
}

/**
 * Declares a route; the schemas type the handler's input.
 * @example defineRoute({ method: 'GET', path: '/sites/:id', operationId: 'getSite', scope: 'site:read', ... })
 */
export function defineRoute<
  B extends TObject | undefined = undefined,
  Q extends TObject | undefined = undefined,
  P extends TObject | undefined = undefined,
>(route: PublicRoute<B, Q, P> | ScopedRoute<B, Q, P> | AuthenticatedRoute<B, Q, P>): RouteDefinition {
  // The kernel validates body, query and params against these very schemas before calling the handler.
  return route as unknown as RouteDefinition
}
