// The one path every request to a route takes, stage by stage: the gate (rate limits, who is calling, may they),
// the input (params, query, body), the precondition (If-Match), the handler (recorded, on a change), the answer.

import { CallerChanged } from '../auth/authenticate.ts'
import type { Caller } from '../auth/caller.ts'
import {
  fingerprintOf,
  idempotencyKeyOf,
  type KeptAnswer,
  keptAnswerOf,
} from '../idempotency/idempotency-keys.ts'
import type { ListFilters } from '../pagination/prepared-list.ts'
import type { RouteDefinition } from '../plugin/route.ts'
import { routeProblems } from '../plugin/route-problems.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'
import { answerRenderer, replayed, toResponse } from './answer-rendering.ts'
import { changeMayProceed, entityTagOf } from './conditional-requests.ts'
import { type HandlerInputOf, handlerInputs, type Started } from './handler-input.ts'
import { handlerRunner, KeptAlready, type KeyInChange } from './handler-run.ts'
import { listAnswer } from './list-answer.ts'
import { errorResponse } from './render-error.ts'
import { type Authorised, routeGate } from './route-gate.ts'
import { idempotentAnswerer, type KeyHooks, keyHolderOf } from './route-idempotency.ts'
import { inputReader, type RouteInput } from './route-input.ts'
import {
  type Charges,
  type CompiledRoute,
  type CurrentRepresentation,
  type PipelineRuntime,
  type RequestInfo,
  type RouteUnderway,
  viewOf,
} from './route-runtime.ts'

export type {
  CompiledRoute,
  CurrentRepresentation,
  PipelineRuntime,
  RequestInfo,
  RequestTrace,
} from './route-runtime.ts'

/** How a route is mounted besides its declaration. */
export interface MountOptions {
  /** The single-resource read of the same path, whose representation an `If-Match` on a change compares with. */
  readonly sibling?: () => CompiledRoute | undefined
}

/** JSON of a flat object with its keys in order. */
function sortedJson(value: Readonly<Record<string, unknown>>): string {
  return JSON.stringify(
    Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  )
}

/** Writes who the caller is into the request's trace, for its log line. */
function traceCaller(info: RequestInfo, caller: Caller | null): void {
  if (!caller || !info.trace) return
  info.trace.userId = caller.user.id
  info.trace.tokenId = caller.token?.id ?? null
  const { view } = caller
  info.trace.customerId =
    caller.token?.customerId ??
    (view.kind === 'customers' && view.customerIds.length === 1 ? (view.customerIds[0] ?? null) : null)
}

/**
 * Refuses a change whose `If-Match` names none of the current representation's tags (412): the current
 * representation is the single-resource read of the same path, run as this caller.
 */
function preconditionCheck({ route }: RouteUnderway, sibling: () => CompiledRoute | undefined) {
  const conditional =
    !route.ownPreconditions &&
    (route.method === 'PATCH' || route.method === 'PUT' || route.method === 'DELETE')
  return async (
    request: Request,
    caller: Caller | null,
    rawParams: Record<string, string>,
    info: RequestInfo,
  ) => {
    const ifMatch = request.headers.get('if-match')
    const read = conditional && ifMatch !== null ? sibling()?.current : null
    if (!read || ifMatch === null) return
    const current = entityTagOf(await read(caller, viewOf(route, caller), rawParams, request, info))
    if (!changeMayProceed(ifMatch, current))
      throw new Problem(kernelProblems.precondition_failed, { headers: { etag: current } })
  }
}

/** The stages of one route's pipeline, made once when it is mounted. */
interface Stages {
  readonly underway: RouteUnderway
  /** Its problems' codes: a refusal with another code fails the request in test panels. */
  readonly declared: ReadonlySet<string>
  readonly gate: ReturnType<typeof routeGate>
  readonly readInput: ReturnType<typeof inputReader>
  readonly checkPrecondition: ReturnType<typeof preconditionCheck>
  readonly inputOf: ReturnType<typeof handlerInputs>
  readonly handler: ReturnType<typeof handlerRunner>
  readonly answers: ReturnType<typeof answerRenderer>
  /** Answers a request carrying an Idempotency-Key (the route's must honour it). */
  answerWithKey(
    request: Request,
    rawParams: Record<string, string>,
    info: RequestInfo,
    charges: Charges,
    key: string,
  ): Promise<KeptAnswer>
}

/** Builds the request pipeline of one route: its stages, and the function that answers its requests. */
export function compileRoute(
  route: RouteDefinition,
  plugin: string,
  runtime: PipelineRuntime,
  eventKinds: ReadonlySet<string>,
  mounting: MountOptions = {},
): CompiledRoute {
  const label = `${route.method} ${route.path} (${plugin})`
  const underway: RouteUnderway = { route, plugin, runtime, eventKinds, label }
  const refs = new Map(routeProblems(route).map((problem) => [problem.code, problem]))
  const stages: Stages = {
    underway,
    declared: new Set(refs.keys()),
    gate: routeGate(underway),
    readInput: inputReader(underway, refs),
    checkPrecondition: preconditionCheck(underway, mounting.sibling ?? (() => undefined)),
    inputOf: handlerInputs(underway),
    handler: handlerRunner(underway),
    answers: answerRenderer(underway),
    answerWithKey: idempotentAnswerer(underway, (...request) => attempt(stages, ...request)),
  }
  return {
    route,
    plugin,
    answer: (request, rawParams, info) => answer(stages, request, rawParams, info),
    current: currentRepresentation(stages),
  }
}

/** Answers a request, refusals included, with the rate limit headers of whoever it was charged to. */
async function answer(
  stages: Stages,
  request: Request,
  rawParams: Record<string, string>,
  info: RequestInfo,
): Promise<Response> {
  const { route, runtime, plugin, label } = stages.underway
  const charges: Charges = { headers: undefined }
  try {
    const key = route.idempotent ? idempotencyKeyOf(request) : null
    const answered =
      key === null
        ? await attempt(stages, request, rawParams, info, charges, {})
        : await stages.answerWithKey(request, rawParams, info, charges, key)
    return toResponse(answered, charges.headers)
  } catch (error) {
    const checks = runtime.contractChecks
    const response = errorResponse(
      checks ? checks.undeclared(error, stages.declared, label) : error,
      info.requestId,
      runtime.log,
      { plugin, operationId: route.operationId },
    )
    for (const [name, value] of Object.entries(charges.headers ?? {})) response.headers.set(name, value)
    return response
  }
}

/**
 * One run of a request: its caller authorised, then answered. A plain list read may be answered on a guessed
 * caller while the guess is confirmed; its answer leaves only once it is.
 */
async function attempt(
  stages: Stages,
  request: Request,
  rawParams: Record<string, string>,
  info: RequestInfo,
  charges: Charges,
  hooks: KeyHooks,
): Promise<KeptAnswer> {
  const { gate } = stages
  const proceed = ({ caller, principal }: Authorised) =>
    answerFor(stages, caller, principal, request, rawParams, info, hooks)
  const guess = hooks.keyInChange || hooks.beforeHandler ? null : gate.guessed(request, info, charges)
  if (!guess) return proceed(await gate.authorise(request, rawParams, info, charges))
  const proceeding = proceed({ caller: guess.caller, principal: undefined }).then(
    (answer) => ({ answer }),
    (error: unknown) => ({ error }),
  )
  try {
    await guess.confirmation
  } catch (error) {
    await proceeding
    if (!(error instanceof CallerChanged)) throw error
    return proceed(await gate.authorise(request, rawParams, info, charges))
  }
  const outcome = await proceeding
  if ('error' in outcome) throw outcome.error
  return outcome.answer
}

/** Answers the request of an authorised caller: its input, its precondition, the handler, the answer. */
async function answerFor(
  stages: Stages,
  caller: Caller | null,
  principal: unknown,
  request: Request,
  rawParams: Record<string, string>,
  info: RequestInfo,
  hooks: KeyHooks,
): Promise<KeptAnswer> {
  const { route, runtime } = stages.underway
  traceCaller(info, caller)
  const input = await stages.readInput(request, rawParams, principal)
  await stages.checkPrecondition(request, caller, rawParams, info)
  const replay = hooks.beforeHandler ? await hooks.beforeHandler(caller, input.body) : null
  if (replay) return replayed(replay, info)
  const started: Started = { jobs: false, events: false }
  const handlerInput = stages.inputOf(caller, viewOf(route, caller), request, info, input, started)
  if (hooks.keyInChange)
    return answerKeyedChange(stages, handlerInput, input, request, info, hooks.keyInChange, started)
  let result = stages.handler.replyOf(await stages.handler.run(handlerInput, info, null), rawParams)
  if (started.jobs || started.events) runtime.committed(started)
  if (route.list) result = await pageOf(stages, result, caller, input)
  return stages.answers.render(result, request, info)
}

/**
 * A change with an Idempotency-Key: the kept answer is read first outside any transaction (a replay takes no
 * write lock), then again inside the change's, where the claim, the change and the answer kept are one commit.
 */
async function answerKeyedChange(
  stages: Stages,
  handlerInput: HandlerInputOf,
  input: RouteInput,
  request: Request,
  info: RequestInfo,
  held: KeyInChange,
  started: Started,
): Promise<KeptAnswer> {
  const { runtime } = stages.underway
  held.claim = {
    caller: keyHolderOf(handlerInput.caller),
    key: held.key,
    fingerprint: fingerprintOf(request.method, new URL(request.url).pathname, input.body),
    windowMs: runtime.idempotencyWindowMs,
    box: runtime.idempotencyBox,
  }
  const early = await keptAnswerOf(runtime.store.db, held.claim)
  if (early) return replayed(early, info)
  const render = (result: unknown) =>
    stages.answers.render(stages.handler.replyOf(result, input.params), request, info)
  let answer: KeptAnswer
  try {
    answer = (await stages.handler.run(handlerInput, info, { held, render })) as KeptAnswer
  } catch (error) {
    if (error instanceof KeptAlready) return replayed(error.answer, info)
    throw error
  }
  if (started.jobs || started.events) runtime.committed(started)
  return answer
}

/** One page of a list's query, its cursor bound to the operation, the caller, the path and the filters. */
function pageOf(stages: Stages, result: unknown, caller: Caller | null, input: RouteInput) {
  const { route, runtime, label } = stages.underway
  const who = caller ? `${caller.user.id}|${caller.token?.id ?? 'session'}` : 'anonymous'
  // Keys sorted: the same filters in another order in the URL are the same walk.
  const binding = `${route.operationId}|${who}|${sortedJson(input.params)}|${sortedJson(input.query)}`
  const page = { ...input.page, limit: input.page.limit ?? 20, binding, secret: runtime.auth.secret }
  const list = route.list as NonNullable<RouteDefinition['list']>
  return listAnswer(list, result, page, input.query as ListFilters, label)
}

/** A single-resource read's representation, as another route's caller would see it; null for other routes. */
function currentRepresentation(stages: Stages): CurrentRepresentation | null {
  const { route } = stages.underway
  if (route.method !== 'GET' || route.list || route.ownPreconditions) return null
  return async (caller, view, rawParams, request, info) => {
    const started = { jobs: false, events: false }
    const parts = { params: rawParams, query: {}, body: undefined, principal: undefined }
    const result = await route.handler(stages.inputOf(caller, view, request, info, parts, started))
    return stages.answers.representationOf(result)
  }
}
