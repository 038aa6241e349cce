// The one path every request to a route takes: authenticate, check scope, read, validate, handle, render.

import { type TObject, type TSchema, Type } from '@sinclair/typebox'
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler'
import type { AuditActor } from '../audit/audit-log.ts'
import { type AuthenticationContext, authenticate, CallerChanged, guessCaller } from '../auth/authenticate.ts'
import { type Caller, wildcardScope } from '../auth/caller.ts'
import type { SecretBox } from '../crypto/secret-box.ts'
import { writeEvent } from '../events/outbox.ts'
import {
  claimIdempotencyKey,
  fingerprintOf,
  type IdempotencyClaim,
  idempotencyKeyOf,
  type KeptAnswer,
  keepAnswer,
  keepAnswerWith,
  keptAnswerOf,
  releaseIdempotencyKey,
} from '../idempotency/idempotency-keys.ts'
import type { JobRequest } from '../jobs/job-definition.ts'
import type { JobRequester } from '../jobs/job-queue.ts'
import { pageQuery } from '../pagination/paginate.ts'
import type { Logger } from '../plugin/define-plugin.ts'
import { type AuditInput, Reply, type RouteDefinition } from '../plugin/route.ts'
import { changesState, routeProblems } from '../plugin/route-problems.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem, type ProblemItem, problemMediaType } from '../problem/problem.ts'
import type { ProblemRef } from '../problem/problem-code.ts'
import { validationItems } from '../problem/validation-errors.ts'
import type { Store, Trx } from '../store/store.ts'
import type { TenantView } from '../tenancy/tenant-view.ts'
import { changeMayProceed, clientHasCurrent, entityTagOf, taggedByKernel } from './conditional-requests.ts'
import type { ContractChecks } from './contract-checks.ts'
import { endingWhen, eventStreamType } from './event-stream-end.ts'
import { listAnswer } from './list-answer.ts'
import { queryReader } from './query-string.ts'
import type { RateDecision, RateKey, RateLimiter } from './rate-limiter.ts'
import { errorResponse } from './render-error.ts'
import { acceptsEmptyBody, readJsonBody, requireMediaType } from './request-body.ts'
import { closeObjects } from './schema-strictness.ts'
import { markSocketUpgrade, type SocketHandler } from './socket-upgrade.ts'
import { unstorableQueryItems, unstorableTextItems } from './text-safety.ts'
import { trimText } from './trim-text.ts'

/** What the pipeline needs of the panel. */
export interface PipelineRuntime {
  readonly store: Store
  /** What authentication needs: the store, the secret (CSRF), and who may hold each scope. */
  readonly auth: AuthenticationContext
  readonly bodyLimitBytes: number
  /** The API base path, prefixed to `Location` headers. */
  readonly basePath: string
  /** How long an Idempotency-Key's answer is kept. */
  readonly idempotencyWindowMs: number
  /** Seals kept answers at rest (they may carry secrets shown once). */
  readonly idempotencyBox: SecretBox
  /** Inserts a job in the handler's transaction, recording who asked. */
  enqueueJob(trx: Trx, job: JobRequest, requester: JobRequester): Promise<string>
  /** Writes an audit entry in the handler's transaction. */
  audit(trx: Trx, actor: AuditActor, entry: AuditInput): Promise<void>
  /** After a handler returned (its transactions committed): wake the job workers and the event dispatcher. */
  committed(work: { jobs: boolean; events: boolean }): void
  /** Test panels: the checks that fail a request breaking its route's declared contract; null otherwise. */
  readonly contractChecks: ContractChecks | null
  /** Requests a minute per credential, per address for anonymous callers and failed credentials. */
  readonly limiter: RateLimiter
  /** Told of every request refused by the limiter, with whose allowance it went over (for the metrics). */
  rateLimited?(key: RateKey): void
  /** Where unexpected failures are logged, under the request id. */
  readonly log: Logger
  /** Aborts when the panel begins to stop: live event streams end then (see `event-stream-end.ts`). */
  readonly stopping?: AbortSignal
}

/** Whose key it is: keys are scoped to the caller, so two callers may use the same one. */
interface HeldKey {
  readonly caller: string
  readonly key: string
}

/** The caller's half of an Idempotency-Key: keys are scoped to who sent them. */
function keyHolderOf(caller: Caller | null): string {
  return `${caller?.user.id ?? 'anonymous'}|${caller?.token?.id ?? 'session'}`
}

/** Thrown inside a change's transaction whose key already holds an answer: rolls it back, and that answer is sent. */
class KeptAlready {
  constructor(readonly answer: KeptAnswer) {}
}

/**
 * An Idempotency-Key on a route whose change the kernel runs: the claim, the change and the kept answer are one
 * transaction. `claimed` says the key was found free (so a refusal afterwards is the request's, and is kept).
 */
interface KeyInChange {
  readonly key: string
  claim: IdempotencyClaim | null
  claimed: boolean
}

/** What a host knows of a request beyond the Request itself. */
export interface RequestInfo {
  readonly requestId: string
  readonly address: string | null
  /** Filled in while the request is answered, for the request log. */
  readonly trace?: RequestTrace
}

/** Who a request turned out to come from, and where it went: what its log line says. */
export interface RequestTrace {
  /** The route template (`/api/v1/sites/:id`). */
  route?: string
  userId?: string | null
  tokenId?: string | null
  /** The customer a token is limited to, or the one customer a caller sees. */
  customerId?: string | null
}

/** A read route's current representation for a caller: what If-Match on a change of the same path compares. */
export type CurrentRepresentation = (
  caller: Caller | null,
  view: TenantView | null,
  params: Record<string, string>,
  request: Request,
  info: RequestInfo,
) => Promise<string>

/** A mounted route: its checked schemas and the function that answers it. */
export interface CompiledRoute {
  readonly route: RouteDefinition
  readonly plugin: string
  /** Answers `request`, refusals included (as problem+json), with the rate limit headers of whoever it charged. */
  answer(request: Request, params: Record<string, string>, info: RequestInfo): Promise<Response>
  /** For a single-resource read: its representation, run as another route's caller would see it. */
  readonly current: CurrentRepresentation | null
}

/** A refusal as kept for replay: the very body and headers the client got. */
function renderedProblem(problem: Problem, requestId: string): KeptAnswer {
  return {
    status: problem.status,
    headers: { 'content-type': problemMediaType, ...problem.headers },
    body: JSON.stringify(problem.toJSON(requestId)),
  }
}

/** JSON of a flat object with its keys in order. */
function sortedJson(value: Readonly<Record<string, unknown>>): string {
  return JSON.stringify(
    Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  )
}

function compile(schema: TObject | undefined): TypeCheck<TSchema> | undefined {
  return schema ? TypeCompiler.Compile(closeObjects(schema)) : undefined
}

/**
 * The 422 of failed fields: `validation_failed` listing each; one failure of a plugin's declared format keeps its
 * own code, as a handler's single field refusal does.
 */
function invalid(
  errors: readonly ProblemItem[],
  prefix: 'body' | 'query',
  refs?: ReadonlyMap<string, ProblemRef>,
): Problem {
  const [only] = errors
  const own = errors.length === 1 && only ? refs?.get(only.code) : undefined
  if (own && only) return new Problem(own, { detail: only.message, errors })
  const count = errors.length
  return new Problem(kernelProblems.validation_failed, {
    detail: `The request ${prefix} has ${count} invalid field${count === 1 ? '' : 's'}.`,
    errors,
  })
}

/** An answer as data (kept for Idempotency-Key replays), before it becomes a Response. */
function jsonAnswer(status: number, body: unknown, headers: Record<string, string>): KeptAnswer {
  if (body === undefined) return { status, headers, body: null }
  // A stream (Reply.stream) carries its own content type.
  if (body instanceof ReadableStream) return { status, headers, body }
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }
}

/** Answers that open a WebSocket (`Reply.upgrade`), with the handler the host hands the connection. */
const socketAnswers = new WeakMap<KeptAnswer, SocketHandler>()

function toResponse(answer: KeptAnswer, extra: Readonly<Record<string, string>> | undefined): Response {
  const response = new Response(answer.body, {
    status: answer.status,
    headers: extra ? { ...answer.headers, ...extra } : answer.headers,
  })
  const socket = socketAnswers.get(answer)
  return socket ? markSocketUpgrade(response, socket) : response
}

/** The query schema a route's request is read with: a list's filters plus `cursor` and `limit`. */
function querySchemaOf(route: RouteDefinition): TObject {
  // A route without query parameters still refuses unknown ones: a misspelt filter must not silently widen a list.
  const declared = route.query ?? Type.Object({})
  if (!route.list) return declared
  return Type.Object({ ...declared.properties, ...pageQuery })
}

/** How a route is mounted besides its declaration. */
export interface MountOptions {
  /** The single-resource read of the same path, whose representation an `If-Match` on a change compares with. */
  readonly sibling?: () => CompiledRoute | undefined
}

/** What one request was charged to: the headers of the last allowance it counted against. */
interface Charges {
  headers: Readonly<Record<string, string>> | undefined
  /** The credential counted already, when the request was first answered on a guessed caller. */
  credential?: string
}

/** The allowance a caller's requests count against: its token's, or its session's. */
function credentialOf(caller: Caller): string {
  return caller.token ? `token:${caller.token.id}` : `session:${caller.session?.id}`
}

/** Builds the request pipeline of one route. */
export function compileRoute(
  route: RouteDefinition,
  plugin: string,
  runtime: PipelineRuntime,
  eventKinds: ReadonlySet<string>,
  mounting: MountOptions = {},
): CompiledRoute {
  const sibling = mounting.sibling ?? (() => undefined)
  const params = compile(route.params)
  const querySchema = querySchemaOf(route)
  const query = TypeCompiler.Compile(closeObjects(querySchema))
  const readQuery = queryReader(querySchema)
  // Most requests send no query: their input is the defaults, checked once here instead of on every request.
  const queryDefaults = readQuery('')
  const defaultsValid = query.Check(queryDefaults)
  const body = compile(route.body)
  // With every field optional, no body at all is `{}`.
  const emptyBodyAllowed = route.body !== undefined && acceptsEmptyBody(route.body)
  const label = `${route.method} ${route.path} (${plugin})`
  const refs = new Map(routeProblems(route).map((problem) => [problem.code, problem]))
  const declared = new Set(refs.keys())
  const conditional =
    !route.ownPreconditions &&
    (route.method === 'PATCH' || route.method === 'PUT' || route.method === 'DELETE')
  const tagged = taggedByKernel(route)
  const checks = runtime.contractChecks

  /** Keeps a decision's headers; throws its 429 past the allowance. */
  function settle(charges: Charges, key: RateKey, decision: RateDecision | null): void {
    if (!decision) return
    charges.headers = decision.headers
    if (decision.refusal) {
      runtime.rateLimited?.(key)
      throw decision.refusal
    }
  }

  /**
   * Counts the request against `key`'s allowance, keeping its headers; throws 429 past it. Answers a promise only
   * when the limiter does (the shared one on PostgreSQL): the in-memory limiter's path stays synchronous.
   */
  function charge(charges: Charges, key: RateKey): Promise<void> | undefined {
    if (route.rateLimited === false) return
    const decision = runtime.limiter.take(key)
    if (decision instanceof Promise) return decision.then((settled) => settle(charges, key, settled))
    settle(charges, key, decision)
  }

  /**
   * The caller, charged to its credential once authenticated; a credential that fails is charged to the address,
   * so sending junk tokens never escapes the address's allowance. Public routes are charged to the address (login
   * to its stricter one) before anything else.
   */
  async function authorise(request: Request, info: RequestInfo, charges: Charges): Promise<Caller | null> {
    const before = route.strictRateLimit
      ? charge(charges, { login: info.address })
      : route.public
        ? charge(charges, { address: info.address })
        : undefined
    if (before) await before
    if (route.public) return null
    let caller: Caller
    try {
      const found = authenticate(request, runtime.auth)
      caller = found instanceof Promise ? await found : found
    } catch (error) {
      if (error instanceof Problem && error.status === 401) await charge(charges, { address: info.address })
      throw error
    }
    const credential = credentialOf(caller)
    // Counted already when the request was first answered on a guess of this very caller (see `guessed`).
    if (charges.credential !== credential) {
      const pending = charge(charges, { credential })
      if (pending) await pending
    }
    permit(caller)
    return caller
  }

  /** Refuses a caller the route is not for (403). */
  function permit(caller: Caller): void {
    // Minting, revoking and password changes are for the whole account: a token narrowed by scope or customer
    // could otherwise mint itself a wider one.
    if (
      route.wildcardOnly &&
      caller.token &&
      (!caller.token.scopes.includes(wildcardScope) || caller.token.customerId)
    ) {
      throw new Problem(kernelProblems.wildcard_token_required)
    }
    if (route.staff && (caller.kind === 'member' || caller.token?.customerId))
      throw new Problem(kernelProblems.staff_only)
    if (route.scope && !caller.scopes.has(route.scope)) {
      throw new Problem(kernelProblems.insufficient_scope, {
        detail: `This operation needs the scope "${route.scope}".`,
        extensions: { scope: route.scope },
        headers: {
          'www-authenticate': `Bearer realm="plinth", error="insufficient_scope", scope="${route.scope}"`,
        },
      })
    }
  }

  /** Whether a request may be answered on a guessed caller: a plain list read, which changes nothing. */
  const guessable =
    route.method === 'GET' &&
    route.list !== undefined &&
    !route.public &&
    !route.credential &&
    !route.strictRateLimit &&
    !route.idempotent &&
    !route.change

  /**
   * The caller guessed for a list read (PostgreSQL, a kept caller), and what confirms it: the token read, and the
   * count against its allowance, both sent at once. The confirmation settles as `authorise` would answer: 401 (the
   * address charged), 429, 403, or {@link CallerChanged} when the request must be answered afresh.
   */
  function guessed(
    request: Request,
    info: RequestInfo,
    charges: Charges,
  ): { caller: Caller; confirmation: Promise<void> } | null {
    const guess = guessable ? guessCaller(request, runtime.auth) : null
    if (!guess) return null
    const { caller } = guess
    const credential = credentialOf(caller)
    charges.credential = credential
    const counting = charge(charges, { credential }) ?? Promise.resolve()
    const confirmation = Promise.allSettled([guess.confirm(), counting]).then(async ([token, counted]) => {
      if (token.status === 'rejected') {
        const { reason } = token
        if (reason instanceof Problem && reason.status === 401)
          await charge(charges, { address: info.address })
        throw reason
      }
      if (counted.status === 'rejected') throw counted.reason
      permit(caller)
    })
    return { caller, confirmation }
  }

  const viewOf = (caller: Caller | null): TenantView | null =>
    caller ? (route.scope ? caller.viewFor(route.scope) : caller.view) : null

  /** The handler's input for one request, minus what differs between answering and representing. */
  function handlerInput(
    caller: Caller | null,
    view: TenantView | null,
    request: Request,
    info: RequestInfo,
    parts: { params: Record<string, string>; query: unknown; body: unknown; principal: unknown },
    started: { jobs: boolean; events: boolean },
  ) {
    const actor = {
      userId: caller?.user.id ?? null,
      tokenId: caller?.token?.id ?? null,
      requestId: info.requestId,
      sourceAddress: info.address,
    }
    return {
      ...parts,
      caller,
      view,
      request,
      requestId: info.requestId,
      address: info.address,
      audit: (trx: Trx, entry: AuditInput) => runtime.audit(trx, actor, entry),
      emit: async (
        trx: Trx,
        event: { kind: string; customerId: string | null; data: Readonly<Record<string, unknown>> },
      ) => {
        if (!eventKinds.has(event.kind))
          throw new Error(`Plugin "${plugin}" emitted undeclared event kind "${event.kind}"`)
        await writeEvent(trx, event)
        started.events = true
      },
      enqueueJob: async (trx: Trx, job: JobRequest) => {
        const id = await runtime.enqueueJob(trx, job, {
          userId: actor.userId,
          tokenId: actor.tokenId,
          requestId: info.requestId,
        })
        started.jobs = true
        return id
      },
    }
  }

  const change = route.change
  if (change && !eventKinds.has(change.event ?? '') && change.event !== undefined)
    throw new Error(`${label} records the event "${change.event}", which its plugin does not declare`)
  const subjectType = change?.action.split('.')[0] ?? ''

  /**
   * The handler of a route declaring `change`: in one transaction with its audit entry and event, and with an
   * Idempotency-Key, its claim and kept answer (`render` makes the answer the client gets, inside the transaction).
   */
  function recorded(
    input: ReturnType<typeof handlerInput>,
    keyed: { held: KeyInChange; render: (result: unknown) => KeptAnswer } | null,
  ): Promise<unknown> {
    if (!change) return Promise.resolve(route.handler(input))
    return runtime.store.transaction(async (trx) => {
      const claim = keyed?.held.claim
      if (keyed && claim) {
        const kept = await keptAnswerOf(trx, claim)
        if (kept) throw new KeptAlready(kept)
        keyed.held.claimed = true
      }
      const returned = await route.handler({ ...input, trx })
      const resource = (returned instanceof Reply ? returned.body : returned) as Record<string, unknown>
      if (typeof resource?.id !== 'string')
        throw new Error(`${label} declares a change but returned no resource with an id`)
      const customerId = typeof resource.customerId === 'string' ? resource.customerId : null
      const brandId = typeof resource.brandId === 'string' ? resource.brandId : null
      await input.audit(trx, {
        action: change.action,
        subject: { type: subjectType, id: resource.id },
        customerId,
        brandId,
        ...(change.details ? { details: change.details(resource) } : {}),
      })
      if (change.event) {
        const data = change.payload ? change.payload(resource) : resource
        await input.emit(trx, { kind: change.event, customerId, data })
      }
      if (!keyed || !claim) return returned
      const answer = keyed.render(returned)
      await keepAnswerWith(trx, claim, answer)
      return answer
    })
  }

  /** The answer of a recorded change that returned the resource itself: 204, 201 with `Location`, or 200. */
  function changeReply(result: unknown, rawParams: Record<string, string>): unknown {
    if (!change || result instanceof Reply) return result
    if (route.responses?.[204]) return Reply.noContent()
    if (!route.responses?.[201]) return result
    const collection = route.path.replace(/:([^/]+)/g, (_match, name: string) => rawParams[name] ?? '')
    return Reply.created(result, `${collection}/${(result as { id: string }).id}`)
  }

  /** The request's query as its schema reads it, or the 422 of what is wrong with it. */
  function queryOf(href: string): Record<string, unknown> {
    if (defaultsValid && !href.includes('?')) return { ...queryDefaults }
    const unstorable = unstorableQueryItems(href)
    if (unstorable.length > 0) throw invalid(unstorable, 'query')
    const queryInput = readQuery(href)
    if (!query.Check(queryInput)) throw invalid(validationItems(query, queryInput, 'query'), 'query')
    return queryInput
  }

  /** Runs the handler, under the contract checks in test panels. */
  async function handle(
    input: ReturnType<typeof handlerInput>,
    info: RequestInfo,
    keyed: Parameters<typeof recorded>[1],
  ): Promise<unknown> {
    if (!checks || !changesState(route) || route.audited === false) return recorded(input, keyed)
    const { result, wrote } = await checks.tracking(async () => recorded(input, keyed))
    if (wrote && !(await checks.audited(info.requestId)))
      throw new Error(`${label} changed the store without writing an audit entry (or declare audited: false)`)
    return result
  }

  /** Refuses the change when `If-Match` names none of the current representation's tags (412). */
  async function checkPrecondition(
    request: Request,
    caller: Caller | null,
    rawParams: Record<string, string>,
    info: RequestInfo,
  ): Promise<void> {
    const ifMatch = request.headers.get('if-match')
    const read = conditional && ifMatch !== null ? sibling()?.current : null
    if (!read || ifMatch === null) return
    const current = await read(caller, viewOf(caller), rawParams, request, info)
    if (!changeMayProceed(ifMatch, entityTagOf(current)))
      throw new Problem(kernelProblems.precondition_failed, { headers: { etag: entityTagOf(current) } })
  }

  /**
   * Runs the route: authorise, validate, then (after `beforeHandler`, which may answer with a kept reply
   * instead) the handler; answers as data.
   */
  async function run(
    request: Request,
    rawParams: Record<string, string>,
    info: RequestInfo,
    charges: Charges,
    beforeHandler: ((caller: Caller | null, body: unknown) => Promise<KeptAnswer | null>) | null,
    keyInChange: KeyInChange | null = null,
  ): Promise<KeptAnswer> {
    const guess = keyInChange || beforeHandler ? null : guessed(request, info, charges)
    if (!guess) return proceed(await authorise(request, info, charges))
    // The read runs beside the confirming one; its answer leaves only once the guess is confirmed.
    const proceeding = proceed(guess.caller).then(
      (answer) => ({ answer }),
      (error: unknown) => ({ error }),
    )
    try {
      await guess.confirmation
    } catch (error) {
      await proceeding
      if (!(error instanceof CallerChanged)) throw error
      return proceed(await authorise(request, info, charges))
    }
    const outcome = await proceeding
    if ('error' in outcome) throw outcome.error
    return outcome.answer

    /** Everything after the caller is known: validate, handle, render. */
    async function proceed(caller: Caller | null): Promise<KeptAnswer> {
      return answerFor(caller, request, rawParams, info, beforeHandler, keyInChange)
    }
  }

  /** Answers the request of `caller` (authorised): validate, then the handler; the answer as data. */
  async function answerFor(
    caller: Caller | null,
    request: Request,
    rawParams: Record<string, string>,
    info: RequestInfo,
    beforeHandler: ((caller: Caller | null, body: unknown) => Promise<KeptAnswer | null>) | null,
    keyInChange: KeyInChange | null,
  ): Promise<KeptAnswer> {
    if (caller && info.trace) {
      info.trace.userId = caller.user.id
      info.trace.tokenId = caller.token?.id ?? null
      const { view } = caller
      info.trace.customerId =
        caller.token?.customerId ??
        (view.kind === 'customers' && view.customerIds.length === 1 ? (view.customerIds[0] ?? null) : null)
    }
    // A credential of the route's own is checked before anything of the request is read.
    const principal = route.credential ? await route.credential.authenticate(request, rawParams) : undefined
    // A path parameter that cannot name anything (a malformed id) is a missing resource, not a bad request.
    if (params && !params.Check(rawParams)) throw new Problem(kernelProblems.not_found)
    const queryInput = queryOf(request.url)
    if (route.rawBody) requireMediaType(request, route.rawBody.contentType ?? 'application/octet-stream')
    let bodyInput: unknown
    if (body) {
      bodyInput =
        (await readJsonBody(request, route.bodyLimitBytes ?? runtime.bodyLimitBytes)) ??
        (emptyBodyAllowed ? {} : undefined)
      if (bodyInput === undefined) {
        throw new Problem(kernelProblems.validation_failed, {
          detail: 'This operation needs a JSON body.',
          errors: [{ location: 'body', message: 'is required', code: 'required' }],
        })
      }
      const refused = [...unstorableTextItems(bodyInput, 'body')]
      if (!body.Check(bodyInput)) {
        const seen = new Set(refused.map((item) => item.location))
        refused.push(...validationItems(body, bodyInput, 'body').filter((item) => !seen.has(item.location)))
      }
      if (refused.length > 0) throw invalid(refused.slice(0, 50), 'body', refs)
      if (route.body) bodyInput = trimText(route.body, bodyInput)
    }
    await checkPrecondition(request, caller, rawParams, info)
    const replay = beforeHandler ? await beforeHandler(caller, bodyInput) : null
    if (replay) return replayed(replay, info)
    const { cursor, limit, ...filters } = queryInput as { cursor?: string; limit?: number }
    const started = { jobs: false, events: false }
    const input = handlerInput(
      caller,
      viewOf(caller),
      request,
      info,
      { params: rawParams, query: route.list ? filters : queryInput, body: bodyInput, principal },
      started,
    )
    if (keyInChange) {
      keyInChange.claim = {
        caller: keyHolderOf(caller),
        key: keyInChange.key,
        fingerprint: fingerprintOf(request.method, new URL(request.url).pathname, bodyInput),
        windowMs: runtime.idempotencyWindowMs,
        box: runtime.idempotencyBox,
      }
      // Read first outside any transaction: a replay takes no write lock. Checked again inside the change's.
      const early = await keptAnswerOf(runtime.store.db, keyInChange.claim)
      if (early) return replayed(early, info)
      const render = (result: unknown) => rendered(changeReply(result, rawParams), request, info)
      let answer: KeptAnswer
      try {
        answer = (await handle(input, info, { held: keyInChange, render })) as KeptAnswer
      } catch (error) {
        if (error instanceof KeptAlready) return replayed(error.answer, info)
        throw error
      }
      if (started.jobs || started.events) runtime.committed(started)
      return answer
    }
    let result = changeReply(await handle(input, info, null), rawParams)
    if (started.jobs || started.events) runtime.committed(started)
    if (route.list) {
      const who = caller ? `${caller.user.id}|${caller.token?.id ?? 'session'}` : 'anonymous'
      // Keys sorted: the same filters in another order in the URL are the same walk.
      const binding = `${route.operationId}|${who}|${sortedJson(rawParams)}|${sortedJson(filters)}`
      const page = { cursor, limit: limit ?? 20, binding, secret: runtime.auth.secret }
      result = await listAnswer(route.list, result, page, label)
    }
    return rendered(result, request, info)
  }

  /** A kept answer sent again, saying so. */
  function replayed(answer: KeptAnswer, info: RequestInfo): KeptAnswer {
    return {
      ...answer,
      headers: { ...answer.headers, 'x-request-id': info.requestId, 'idempotent-replayed': 'true' },
    }
  }

  /** The answer as data: a Reply's status, headers and `Location`, else 200 (with its ETag on a tagged read). */
  function rendered(result: unknown, request: Request, info: RequestInfo): KeptAnswer {
    const headers: Record<string, string> = { 'x-request-id': info.requestId }
    if (route.showsSecret) headers['cache-control'] = 'no-store'
    if (result instanceof Reply) {
      const location: Record<string, string> = result.location
        ? { location: `${runtime.basePath}${result.location}` }
        : {}
      const { stopping } = runtime
      // An event stream never ends by itself: it ends when the panel stops.
      const body =
        stopping &&
        result.body instanceof ReadableStream &&
        result.headers['content-type'] === eventStreamType
          ? endingWhen(result.body, stopping)
          : result.body
      const answer = jsonAnswer(result.status, body, { ...headers, ...result.headers, ...location })
      const socket = Reply.socketOf(result)
      if (socket) socketAnswers.set(answer, socket)
      return answer
    }
    const answer = jsonAnswer(200, result, headers)
    if (!tagged || answer.body === null || typeof answer.body !== 'string') return answer
    const etag = entityTagOf(answer.body)
    if (clientHasCurrent(request.headers.get('if-none-match'), etag))
      return { status: 304, headers: { 'x-request-id': info.requestId, etag }, body: null }
    return { ...answer, headers: { ...answer.headers, etag } }
  }

  /**
   * With an Idempotency-Key on an idempotent route: the first request runs and its answer (a refusal too) is
   * kept; the same request again gets that answer with `Idempotent-Replayed: true`; a failure on the server's side
   * is not kept, so the client can retry with the same key.
   */
  async function answerIdempotently(
    request: Request,
    rawParams: Record<string, string>,
    info: RequestInfo,
    charges: Charges,
    key: string,
  ): Promise<KeptAnswer> {
    if (change) return answerChangeIdempotently(request, rawParams, info, charges, key)
    // Set only once this request holds the key: refusals of the claim itself must not overwrite the kept answer.
    const held: { claim: HeldKey | null } = { claim: null }
    try {
      const answered = await run(request, rawParams, info, charges, async (caller, bodyInput) => {
        const claim = { caller: keyHolderOf(caller), key }
        const fingerprint = fingerprintOf(request.method, new URL(request.url).pathname, bodyInput)
        const kept = await claimIdempotencyKey(runtime.store, {
          ...claim,
          fingerprint,
          windowMs: runtime.idempotencyWindowMs,
          box: runtime.idempotencyBox,
        })
        if (kept === null) held.claim = claim
        return kept
      })
      if (held.claim)
        await keepAnswer(runtime.store, held.claim.caller, held.claim.key, answered, runtime.idempotencyBox)
      return answered
    } catch (error) {
      const { claim } = held
      if (claim === null) throw error
      if (error instanceof Problem && error.status < 500) {
        const kept = renderedProblem(error, info.requestId)
        await keepAnswer(runtime.store, claim.caller, claim.key, kept, runtime.idempotencyBox)
      } else {
        await releaseIdempotencyKey(runtime.store, claim.caller, claim.key)
      }
      throw error
    }
  }

  /**
   * An Idempotency-Key on a route whose change the kernel runs: claim, change and kept answer in one transaction. A
   * refusal of the request (after the key was found free) rolls the change back and is kept in a transaction of its
   * own; a failure on the server's side keeps nothing.
   */
  async function answerChangeIdempotently(
    request: Request,
    rawParams: Record<string, string>,
    info: RequestInfo,
    charges: Charges,
    key: string,
  ): Promise<KeptAnswer> {
    const held: KeyInChange = { key, claim: null, claimed: false }
    try {
      return await run(request, rawParams, info, charges, null, held)
    } catch (error) {
      const { claim } = held
      if (!claim || !held.claimed || !(error instanceof Problem) || error.status >= 500) throw error
      const refusal = renderedProblem(error, info.requestId)
      const kept = await runtime.store.transaction(async (trx) => {
        const first = await keptAnswerOf(trx, claim)
        if (!first) await keepAnswerWith(trx, claim, refusal)
        return first
      })
      // Another request with the same key finished first: its answer is this key's.
      if (kept) return replayed(kept, info)
      throw error
    }
  }

  async function answer(
    request: Request,
    rawParams: Record<string, string>,
    info: RequestInfo,
  ): Promise<Response> {
    const charges: Charges = { headers: undefined }
    try {
      const key = route.idempotent ? idempotencyKeyOf(request) : null
      const answered =
        key === null
          ? await run(request, rawParams, info, charges, null)
          : await answerIdempotently(request, rawParams, info, charges, key)
      return toResponse(answered, charges.headers)
    } catch (error) {
      const response = errorResponse(
        checks ? checks.undeclared(error, declared, label) : error,
        info.requestId,
        runtime.log,
        { plugin, operationId: route.operationId },
      )
      for (const [name, value] of Object.entries(charges.headers ?? {})) response.headers.set(name, value)
      return response
    }
  }

  const current: CurrentRepresentation | null = tagged
    ? async (caller, view, rawParams, request, info) => {
        const started = { jobs: false, events: false }
        const parts = { params: rawParams, query: {}, body: undefined, principal: undefined }
        const result = await route.handler(handlerInput(caller, view, request, info, parts, started))
        return JSON.stringify(result instanceof Reply ? result.body : result)
      }
    : null

  return { route, plugin, answer, current }
}
