// A route as data: what it needs (scope, schemas, problems, paging) is declared once and enforced and documented
// from there.

import { Kind, type Static, type TObject, type TSchema } from '@sinclair/typebox'
import type { Caller } from '../auth/caller.ts'
import type { SocketHandler } from '../http/socket-upgrade.ts'
import type { JobRequest } from '../jobs/job-definition.ts'
import type { ProblemRef } from '../problem/problem-code.ts'
import type { Db, Trx } from '../store/store.ts'
import type { TenantView } from '../tenancy/tenant-view.ts'
import type { ChangeDeclaration } from './change.ts'
import type { CustomerCascade } from './customer-cascade.ts'
import { type IdParams, idParamsSchema } from './id-params.ts'
import type { ListDeclaration } from './list-declaration.ts'
import type { AuditInput, EventInput } from './records.ts'

/** HTTP methods a route may answer. */
export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** A documented response of an operation. */
export interface RouteResponse {
  readonly description: string
  /**
   * Schema of the body (JSON's, or of the text in `contentType`, e.g. `t.String({ description })`); omitted for an
   * empty response (204), a stream, or text documented as a plain string.
   */
  readonly schema?: TSchema
  /**
   * The media type of a body that is not JSON: `text/plain; charset=utf-8` for a BIND zone file, `text/csv`,
   * `application/x-asciicast`. The handler returns the body as text (a string) or bytes (a `Uint8Array`) and the
   * kernel sends it as it is, under this type; a read's 200 gets the kernel's `ETag` and answers `If-None-Match`
   * with 304 as a JSON one does. `text/event-stream` for a {@link Reply.stream}, which is never tagged. Default JSON.
   * @example responses: { 200: { description: 'The zone file.', contentType: 'text/plain; charset=utf-8' } }
   */
  readonly contentType?: string
  /** Documented response headers (name → description), e.g. `Location`. */
  readonly headers?: Readonly<Record<string, string>>
  /**
   * Other media types the same response is answered in, chosen by the request's `Accept` (the handler looks and
   * answers a {@link Reply} naming it): each documented beside the main one with its own schema (default a string).
   * @example alternatives: { 'text/event-stream': { schema: t.String({ description: '`entry` events, then `end`.' }) } }
   */
  readonly alternatives?: Readonly<Record<string, { readonly schema?: TSchema }>>
}

export type { IdParams } from './id-params.ts'
export type { AuditInput, EventInput } from './records.ts'

/** A request header an operation reads, as its document describes it. */
export interface RequestHeader {
  readonly description: string
  /** Whether a request without it is refused. Default false. */
  readonly required?: boolean
  /** Its values; default a string of at most 1,024 characters. */
  readonly schema?: TSchema
}

/** What a handler receives. */
export interface HandlerInput<B, Q, P, Authenticated extends boolean, Principal = undefined> {
  readonly body: B
  /** The query, checked; on a list route its filters only (`cursor` and `limit` are the kernel's). */
  readonly query: Q
  readonly params: P
  /** The caller; null only on public routes. */
  readonly caller: Authenticated extends true ? Caller : Caller | null
  /** The customers the caller may see with the route's scope (with no scope: with any); reads and lists go through it. */
  readonly view: Authenticated extends true ? TenantView : TenantView | null
  /** What the route's own `credential` authenticated (a node), before the body was read. */
  readonly principal: Principal
  /**
   * The store's query builder, outside any transaction: for reads. A change's handler reads and writes through
   * its `trx` instead (on SQLite a read through `db` while the transaction is open waits for ever).
   */
  readonly db: Db
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
}

/**
 * A response other than a plain 200 with the route's declared body: another status, headers (a media type chosen
 * per request: `new Reply(200, bytes, { 'content-type': 'image/png' })`), a `Location`, a stream, a WebSocket.
 */
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

  /** 202 Accepted: the work continues in a job (the body carries its `jobId`). */
  static accepted(body: unknown): Reply {
    return new Reply(202, body)
  }

  /** 204 No Content. */
  static noContent(): Reply {
    return new Reply(204, undefined)
  }

  /**
   * 200 with a body sent as it is produced (`text/event-stream`), never cached nor kept for replays. The stream
   * should end when the request's signal aborts (the client went away).
   */
  static stream(body: ReadableStream<Uint8Array>, contentType: string): Reply {
    return new Reply(200, body, { 'content-type': contentType, 'cache-control': 'no-store' })
  }

  /**
   * Opens a WebSocket on the request, handled by `socket` (see `core/http/socket-upgrade.ts`): the route has checked
   * everything first (its credential, tenancy, the Origin). A host that upgrades connections (the standard Bun host)
   * hands `socket` the connection; any other answers 426 Upgrade Required.
   */
  static upgrade(socket: SocketHandler): Reply {
    const reply = new Reply(426, undefined, { upgrade: 'websocket', 'cache-control': 'no-store' })
    upgradeHandlers.set(reply, socket)
    return reply
  }

  /** The WebSocket handler of a reply made by {@link Reply.upgrade}. */
  static socketOf(reply: Reply): SocketHandler | undefined {
    return upgradeHandlers.get(reply)
  }
}

const upgradeHandlers = new WeakMap<Reply, SocketHandler>()

/**
 * A credential the kernel does not know, which a public route checks itself (a node's agent token), documented
 * as its own OpenAPI security scheme. The kernel calls `authenticate` before it reads the body, so an anonymous
 * caller is refused (401) without making the panel parse anything.
 */
export interface RouteCredential<Principal = unknown> {
  /** The security scheme's name in the document, camelCase: `nodeAgentToken`. Not `apiToken` or `session`. */
  readonly name: string
  /** The OpenAPI Security Scheme Object, e.g. `{ type: 'http', scheme: 'bearer', description }`. */
  readonly scheme: Readonly<Record<string, unknown>>
  /** Who presents it, or a thrown Problem (401 with `WWW-Authenticate`). Path parameters are not checked yet. */
  authenticate(request: Request, params: Readonly<Record<string, string>>): Promise<Principal>
  /**
   * The allowance the principal's requests count against (`node:<id>`), once `authenticate` answered it: its own,
   * of `RATE_LIMIT_PER_MINUTE` requests a minute like an API token's, shared by every route of this plugin whose
   * credential names the same key. Without it, the requests count against the client's address. A credential
   * that fails always counts against the address, so junk credentials never escape the address's allowance.
   */
  rateKey?(principal: Principal): string
}

type Input<S> = S extends TSchema ? Static<S> : undefined
type ParamsInput<P> = P extends TObject
  ? Static<P>
  : P extends IdParams
    ? { readonly [K in keyof P]: string }
    : undefined

interface RouteCommon<B extends TObject | undefined, Q extends TObject | undefined, P> {
  readonly method: RouteMethod
  /** Path below the API base (`/sites/:id`). */
  readonly path: string
  /** Unique across the panel, camelCase: `createSite`. */
  readonly operationId: string
  /** One line for the reference; default the operation id in words (`listCronJobs`: "List cron jobs"). */
  readonly summary?: string
  readonly description?: string
  /** Path parameters: a schema, or ids by prefix (`{ id: 'site' }`). */
  readonly params?: P
  /** Query parameters; on a list route the filters only. */
  readonly query?: Q
  readonly body?: B
  /**
   * The most bytes its JSON body may have, for an operation that takes more than the panel's `BODY_LIMIT_BYTES`
   * (a node agent's answer carrying a file's content). Default that limit.
   */
  readonly bodyLimitBytes?: number
  /**
   * The operation takes its body as bytes, not JSON (an uploaded file): the kernel neither reads nor parses it, and
   * the handler reads `request.body` as a stream, never whole. Documented with `contentType` (default
   * `application/octet-stream`). Not with `body`.
   */
  readonly rawBody?: { readonly description: string; readonly contentType?: string }
  /**
   * The handler answers `If-Match` and `If-None-Match` itself, with entity tags of its own (a file's, which only
   * the node can compare when it writes): the kernel neither tags its answer nor checks a change against the read
   * at the same path.
   */
  readonly ownPreconditions?: boolean
  /**
   * Request headers the handler reads itself, documented as header parameters: `Upload-Offset`, `Range`. The
   * kernel's own (`Idempotency-Key`, and `If-Match` or `If-None-Match` where it answers them) need no entry.
   * @example requestHeaders: { 'Upload-Offset': { description: 'Where these bytes start.', required: true } }
   */
  readonly requestHeaders?: Readonly<Record<string, RequestHeader>>
  /** A list operation (see {@link ListDeclaration}); its 200 response is the page, so `responses` may be left out. */
  readonly list?: ListDeclaration
  /**
   * Success responses by status: a response, or just the body's named schema (`{ 200: Site }`, described as "The
   * Site."; a 201 also documents `Location`). Required except on list routes.
   */
  readonly responses?: Readonly<Record<number, RouteResponse | TSchema>>
  /**
   * Every refusal specific to this operation (the kernel adds the ones every operation of its shape can give).
   * Test panels fail a request that answers with a code the route does not list.
   */
  readonly problems?: readonly ProblemRef[]
  /**
   * Whether a creating POST honours `Idempotency-Key`: the same request again within the window gets the first
   * answer (with `Idempotent-Replayed: true`) and creates nothing. A POST answering 201 must say, one way or the
   * other: start-up refuses it otherwise.
   */
  readonly idempotent?: boolean
  /**
   * False for a state-changing route that changes nothing worth an audit entry (traffic counters, a dry run).
   * Default true: test panels fail a successful POST, PUT, PATCH or DELETE that wrote no audit entry.
   */
  readonly audited?: boolean
  /**
   * The answer shows a secret once (a new token, a signing secret): it is sent with `Cache-Control: no-store`, so
   * no cache keeps it.
   */
  readonly showsSecret?: boolean
  /** Counts against the strict per-address allowance (login) instead of the ordinary one. */
  readonly strictRateLimit?: boolean
}

/** A route open to anyone: login, or a caller the route authenticates itself (`credential`). */
export interface PublicRoute<B extends TObject | undefined, Q extends TObject | undefined, P, Principal>
  extends RouteCommon<B, Q, P> {
  readonly public: true
  /** The credential it checks, before the body is read; documented as the operation's security. */
  readonly credential?: RouteCredential<Principal>
  /**
   * False for a probe a load balancer polls (the health checks): never counted against any allowance, so never
   * 429, and documented without rate limit headers. Public routes only.
   */
  readonly rateLimited?: false
  readonly scope?: undefined
  readonly staff?: undefined
  readonly authenticated?: undefined
  readonly change?: undefined
  handler(
    input: HandlerInput<Input<B>, Input<Q>, ParamsInput<P>, false, Principal>,
  ): Promise<unknown> | unknown
}

/** A route open to any authenticated caller whatever its scopes (`/me`, logout, listing one's own tokens). */
export interface AuthenticatedRoute<B extends TObject | undefined, Q extends TObject | undefined, P>
  extends RouteCommon<B, Q, P> {
  readonly authenticated: true
  /** Refuse tokens that do not carry `*` or are limited to a customer (sessions always may): minting and revoking tokens. */
  readonly wildcardOnly?: boolean
  readonly scope?: undefined
  readonly public?: undefined
  readonly staff?: undefined
  readonly credential?: undefined
  readonly change?: undefined
  handler(input: HandlerInput<Input<B>, Input<Q>, ParamsInput<P>, true>): Promise<unknown> | unknown
}

/** A route that needs a scope (the default: a route that declares neither a scope nor `public` fails start-up). */
export interface ScopedRoute<B extends TObject | undefined, Q extends TObject | undefined, P>
  extends RouteCommon<B, Q, P> {
  readonly scope: string
  readonly public?: undefined
  readonly authenticated?: undefined
  readonly credential?: undefined
  readonly change?: undefined
  /** A staff area: tokens limited to one customer are refused with 403 `staff_only`. */
  readonly staff?: boolean
  handler(input: HandlerInput<Input<B>, Input<Q>, ParamsInput<P>, true>): Promise<unknown> | unknown
}

/** A scoped route whose change the kernel records and makes transactional (see {@link ChangeDeclaration}). */
export interface ChangeRoute<
  B extends TObject | undefined,
  Q extends TObject | undefined,
  P,
  Prepared = undefined,
> extends Omit<ScopedRoute<B, Q, P>, 'change' | 'handler'> {
  readonly change: ChangeDeclaration
  /**
   * Work before the change's transaction, outside it: what is slow or reaches beyond the store (a DNS lookup, a
   * node told of an account, a password hashed). Its result is the handler's `prepared`; a refusal it throws
   * changes nothing. It runs once per request, however often the store retries the transaction after it.
   */
  prepare?(input: HandlerInput<Input<B>, Input<Q>, ParamsInput<P>, true>): Promise<Prepared> | Prepared
  /**
   * Undoes what `prepare` did beyond the store when the change then fails (a node told of an account the panel
   * did not record); the failure is answered as it would be without it.
   */
  undo?(prepared: Prepared, error: unknown): Promise<void> | void
  handler(
    input: HandlerInput<Input<B>, Input<Q>, ParamsInput<P>, true> & {
      readonly trx: Trx
      readonly prepared: Prepared
    },
  ): Promise<unknown> | unknown
}

/** Any route, as the kernel stores it: inputs are checked against the schemas before the handler sees them. */
export interface RouteDefinition
  extends Omit<
    RouteCommon<TObject | undefined, TObject | undefined, never>,
    'params' | 'responses' | 'summary'
  > {
  readonly summary: string
  readonly params?: TObject
  readonly responses?: Readonly<Record<number, RouteResponse>>
  readonly public?: true
  readonly credential?: RouteCredential
  readonly rateLimited?: false
  readonly authenticated?: true
  readonly wildcardOnly?: boolean
  readonly scope?: string
  readonly staff?: boolean
  readonly change?: ChangeDeclaration
  /** A DELETE route of a resource whose records go with their customer (made by `resourceRoutes`). */
  readonly removedWithCustomer?: CustomerCascade
  prepare?(input: HandlerInput<unknown, unknown, unknown, boolean, unknown>): unknown
  undo?(prepared: unknown, error: unknown): Promise<void> | void
  handler(
    input: HandlerInput<unknown, unknown, unknown, boolean, unknown> & {
      readonly trx?: Trx
      readonly prepared?: unknown
    },
  ): Promise<unknown> | unknown
}

/**
 * Declares a route; the schemas type the handler's input.
 * @example defineRoute({ method: 'GET', path: '/sites/:id', operationId: 'getSite', scope: 'site:read', params: { id: 'site' }, ... })
 */
export function defineRoute<
  B extends TObject | undefined = undefined,
  Q extends TObject | undefined = undefined,
  P extends TObject | IdParams | undefined = undefined,
  Prepared = undefined,
>(route: ChangeRoute<B, Q, P, Prepared>): RouteDefinition
export function defineRoute<
  B extends TObject | undefined = undefined,
  Q extends TObject | undefined = undefined,
  P extends TObject | IdParams | undefined = undefined,
  Principal = undefined,
>(
  route: PublicRoute<B, Q, P, Principal> | ScopedRoute<B, Q, P> | AuthenticatedRoute<B, Q, P>,
): RouteDefinition
export function defineRoute(
  route: RouteCommon<TObject | undefined, TObject | undefined, unknown>,
): RouteDefinition {
  // The kernel validates body, query and params against these very schemas before calling the handler.
  const params = route.params as TObject | IdParams | undefined
  const unknownFilters = Object.keys(route.list?.filters ?? {}).filter(
    (name) => !(name in (route.query?.properties ?? {})),
  )
  if (unknownFilters.length > 0)
    throw new Error(
      `${route.method} ${route.path} declares filters that are not in its query: ${unknownFilters.join(', ')}`,
    )
  return {
    ...route,
    summary: route.summary ?? summaryOf(route.operationId),
    ...(params === undefined ? {} : { params: idParamsSchema(params) }),
    ...(route.responses === undefined ? {} : { responses: describedResponses(route.responses) }),
  } as unknown as RouteDefinition
}

/** An operation id in words: `listCronJobs` reads "List cron jobs". */
function summaryOf(operationId: string): string {
  const words = operationId.replace(/([A-Z])/g, ' $1').toLowerCase()
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}`
}

/** Responses given as bare schemas, described: `{ 200: Site }` is "The Site."; a 201 says where it lives. */
function describedResponses(
  responses: Readonly<Record<number, RouteResponse | TSchema>>,
): Record<number, RouteResponse> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      if (!(Kind in response)) return [status, response]
      const name = (response as { $id?: string }).$id ?? 'answer'
      const created = status === '201'
      return [
        status,
        {
          description: created ? `The new ${name}.` : `The ${name}.`,
          schema: response,
          ...(created ? { headers: { Location: `URL of the ${name}.` } } : {}),
        },
      ]
    }),
  )
}
