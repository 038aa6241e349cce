// The one path every request to a plugin route takes: authenticate, check scope, read, validate, handle, render.

import { type TObject, type TSchema, Type } from '@sinclair/typebox'
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler'
import { writeAudit } from '../audit/audit-log.ts'
import { type AuthenticationContext, authenticate } from '../auth/authenticate.ts'
import { type Caller, wildcardScope } from '../auth/caller.ts'
import type { SecretBox } from '../crypto/secret-box.ts'
import { writeEvent } from '../events/outbox.ts'
import {
  claimIdempotencyKey,
  fingerprintOf,
  idempotencyKeyOf,
  type KeptAnswer,
  keepAnswer,
  releaseIdempotencyKey,
} from '../idempotency/idempotency-keys.ts'
import type { JobRequest } from '../jobs/job-definition.ts'
import type { JobRequester } from '../jobs/job-queue.ts'
import { paginate } from '../pagination/paginate.ts'
import { Reply, type RouteDefinition } from '../plugin/route.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem, problemMediaType } from '../problem/problem.ts'
import { validationItems } from '../problem/validation-errors.ts'
import type { Store, Trx } from '../store/store.ts'
import { queryReader } from './query-string.ts'
import { readJsonBody } from './request-body.ts'
import { closeObjects } from './schema-strictness.ts'

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
  /** After a handler returned (its transactions committed): wake the job workers and the event dispatcher. */
  committed(work: { jobs: boolean; events: boolean }): void
}

/** Whose key it is: keys are scoped to the caller, so two callers may use the same one. */
interface IdempotencyClaim {
  readonly caller: string
  readonly key: string
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

/** What a host knows of a request beyond the Request itself. */
export interface RequestInfo {
  readonly requestId: string
  readonly address: string | null
}

/** A mounted route: its checked schemas and the function that answers it. */
export interface CompiledRoute {
  readonly route: RouteDefinition
  readonly plugin: string
  /** Answers `request`; `headers` go on every answer it renders (a refusal it throws carries its own). */
  answer(
    request: Request,
    params: Record<string, string>,
    info: RequestInfo,
    headers?: Readonly<Record<string, string>>,
  ): Promise<Response>
}

function compile(schema: TObject | undefined): TypeCheck<TSchema> | undefined {
  return schema ? TypeCompiler.Compile(closeObjects(schema)) : undefined
}

function validationProblem(check: TypeCheck<TSchema>, value: unknown, prefix: 'body' | 'query'): Problem {
  const errors = validationItems(check, value, prefix)
  const count = errors.length
  return new Problem(kernelProblems.validation_failed, {
    detail: `The request ${prefix} has ${count} invalid field${count === 1 ? '' : 's'}.`,
    errors,
  })
}

/** An answer as data (kept for Idempotency-Key replays), before it becomes a Response. */
function jsonAnswer(status: number, body: unknown, headers: Record<string, string>): KeptAnswer {
  if (body === undefined) return { status, headers, body: null }
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }
}

function toResponse(answer: KeptAnswer, extra: Readonly<Record<string, string>> | undefined): Response {
  return new Response(answer.body, {
    status: answer.status,
    headers: extra ? { ...answer.headers, ...extra } : answer.headers,
  })
}

/** Builds the request pipeline of one route. */
export function compileRoute(
  route: RouteDefinition,
  plugin: string,
  runtime: PipelineRuntime,
  eventKinds: ReadonlySet<string>,
): CompiledRoute {
  const params = compile(route.params)
  // A route without query parameters still refuses unknown ones: a misspelt filter must not silently widen a list.
  const querySchema = route.query ?? Type.Object({})
  const query = TypeCompiler.Compile(closeObjects(querySchema))
  const readQuery = queryReader(querySchema)
  const body = compile(route.body)

  async function authorise(request: Request): Promise<Caller | null> {
    if (route.public) return null
    const caller = await authenticate(request, runtime.auth)
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
    return caller
  }

  /**
   * Runs the route: authorise, validate, then (after `beforeHandler`, which may answer with a kept reply
   * instead) the handler; answers as data.
   */
  async function run(
    request: Request,
    rawParams: Record<string, string>,
    info: RequestInfo,
    beforeHandler: ((caller: Caller | null, body: unknown) => Promise<KeptAnswer | null>) | null,
  ): Promise<KeptAnswer> {
    const caller = await authorise(request)
    // A path parameter that cannot name anything (a malformed id) is a missing resource, not a bad request.
    if (params && !params.Check(rawParams)) throw new Problem(kernelProblems.not_found)
    const queryInput = readQuery(request.url)
    if (!query.Check(queryInput)) throw validationProblem(query, queryInput, 'query')
    let bodyInput: unknown
    if (body) {
      bodyInput = await readJsonBody(request, runtime.bodyLimitBytes)
      if (bodyInput === undefined) {
        throw new Problem(kernelProblems.validation_failed, {
          detail: 'This operation needs a JSON body.',
          errors: [{ location: 'body', message: 'is required', code: 'required' }],
        })
      }
      if (!body.Check(bodyInput)) throw validationProblem(body, bodyInput, 'body')
    }
    const replay = beforeHandler ? await beforeHandler(caller, bodyInput) : null
    if (replay) {
      return {
        ...replay,
        headers: { ...replay.headers, 'x-request-id': info.requestId, 'idempotent-replayed': 'true' },
      }
    }
    const actor = {
      userId: caller?.user.id ?? null,
      tokenId: caller?.token?.id ?? null,
      requestId: info.requestId,
      sourceAddress: info.address,
    }
    const started = { jobs: false, events: false }
    const result = await route.handler({
      body: bodyInput,
      query: queryInput,
      params: rawParams,
      caller,
      view: caller ? (route.scope ? caller.viewFor(route.scope) : caller.view) : null,
      request,
      requestId: info.requestId,
      address: info.address,
      audit: (trx, entry) => writeAudit(trx, actor, entry),
      page: (pageQuery, options) => {
        const { cursor, limit } = queryInput as { cursor?: string; limit?: number }
        const who = caller ? `${caller.user.id}|${caller.token?.id ?? 'session'}` : 'anonymous'
        // Keys sorted: the same filters in another order in the URL are the same walk.
        const binding = `${route.operationId}|${who}|${sortedJson(rawParams)}|${sortedJson(options.filters ?? {})}`
        return paginate(
          pageQuery,
          { cursor, limit: limit ?? 20, binding, secret: runtime.auth.secret },
          options,
        )
      },
      emit: async (trx, event) => {
        if (!eventKinds.has(event.kind))
          throw new Error(`Plugin "${plugin}" emitted undeclared event kind "${event.kind}"`)
        await writeEvent(trx, event)
        started.events = true
      },
      enqueueJob: async (trx, job) => {
        const id = await runtime.enqueueJob(trx, job, {
          userId: actor.userId,
          tokenId: actor.tokenId,
          requestId: info.requestId,
        })
        started.jobs = true
        return id
      },
    })
    if (started.jobs || started.events) runtime.committed(started)
    const headers = { 'x-request-id': info.requestId }
    if (result instanceof Reply) {
      const location: Record<string, string> = result.location
        ? { location: `${runtime.basePath}${result.location}` }
        : {}
      return jsonAnswer(result.status, result.body, { ...headers, ...result.headers, ...location })
    }
    return jsonAnswer(200, result, headers)
  }

  /**
   * With an Idempotency-Key on an idempotent route: the first request runs and its answer (a refusal too) is
   * kept; the same request again gets that answer with `Idempotent-Replayed: true`; a failure on the server's side
   * is not kept, so the client can retry with the same key.
   */
  async function answer(
    request: Request,
    rawParams: Record<string, string>,
    info: RequestInfo,
    headers?: Readonly<Record<string, string>>,
  ): Promise<Response> {
    const key = route.idempotent ? idempotencyKeyOf(request) : null
    if (key === null) return toResponse(await run(request, rawParams, info, null), headers)
    // Set only once this request holds the key: refusals of the claim itself must not overwrite the kept answer.
    const held: { claim: IdempotencyClaim | null } = { claim: null }
    try {
      const rendered = await run(request, rawParams, info, async (caller, bodyInput) => {
        const claim = { caller: `${caller?.user.id ?? 'anonymous'}|${caller?.token?.id ?? 'session'}`, key }
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
        await keepAnswer(runtime.store, held.claim.caller, held.claim.key, rendered, runtime.idempotencyBox)
      return toResponse(rendered, headers)
    } catch (error) {
      const { claim } = held
      if (claim === null) throw error
      if (error instanceof Problem && error.status < 500) {
        await keepAnswer(
          runtime.store,
          claim.caller,
          claim.key,
          renderedProblem(error, info.requestId),
          runtime.idempotencyBox,
        )
      } else {
        await releaseIdempotencyKey(runtime.store, claim.caller, claim.key)
      }
      throw error
    }
  }

  return { route, plugin, answer }
}
