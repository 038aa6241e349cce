// Idempotency-Key on a route that honours it: the first request runs and its answer (a refusal too) is kept; the
// same request again gets that answer with `Idempotent-Replayed: true`; a failure on the server's side is not
// kept, so the client can retry with the same key.

import type { Caller } from '../auth/caller.ts'
import {
  claimIdempotencyKey,
  fingerprintOf,
  type KeptAnswer,
  keepAnswer,
  keepAnswerWith,
  keptAnswerOf,
  releaseIdempotencyKey,
} from '../idempotency/idempotency-keys.ts'
import { Problem } from '../problem/problem.ts'
import { renderedProblem, replayed } from './answer-rendering.ts'
import type { KeyInChange } from './handler-run.ts'
import type { Charges, RequestInfo, RouteUnderway } from './route-runtime.ts'

/** The caller's half of an Idempotency-Key: keys are scoped to who sent them. */
export function keyHolderOf(caller: Caller | null): string {
  return `${caller?.user.id ?? 'anonymous'}|${caller?.token?.id ?? 'session'}`
}

/** What a request's run may be given besides the request: how its Idempotency-Key is held. */
export interface KeyHooks {
  /** After validation, before the handler: claims the key, or answers with the reply kept under it. */
  readonly beforeHandler?: (caller: Caller | null, body: unknown) => Promise<KeptAnswer | null>
  /** On a change route: the key, claimed inside the change's own transaction. */
  readonly keyInChange?: KeyInChange
}

/** One run of a request through the pipeline, as data. */
export type Attempt = (
  request: Request,
  rawParams: Record<string, string>,
  info: RequestInfo,
  charges: Charges,
  hooks: KeyHooks,
) => Promise<KeptAnswer>

/** Answers the requests of one route that carry an Idempotency-Key, each through `attempt`. */
export function idempotentAnswerer({ route, runtime }: RouteUnderway, attempt: Attempt) {
  /** A route whose handler runs its own transactions: the key is claimed first, the answer kept after. */
  async function answerAroundHandler(
    request: Request,
    rawParams: Record<string, string>,
    info: RequestInfo,
    charges: Charges,
    key: string,
  ): Promise<KeptAnswer> {
    // Set only once this request holds the key: refusals of the claim itself must not overwrite the kept answer.
    const held: { claim: { caller: string; key: string } | null } = { claim: null }
    const beforeHandler = async (caller: Caller | null, bodyInput: unknown) => {
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
    }
    try {
      const answered = await attempt(request, rawParams, info, charges, { beforeHandler })
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
   * A route whose change the kernel runs: claim, change and kept answer in one transaction. A refusal of the
   * request (after the key was found free) rolls the change back and is kept in a transaction of its own; a
   * failure on the server's side keeps nothing.
   */
  async function answerInChange(
    request: Request,
    rawParams: Record<string, string>,
    info: RequestInfo,
    charges: Charges,
    key: string,
  ): Promise<KeptAnswer> {
    const held: KeyInChange = { key, claim: null, claimed: false }
    try {
      return await attempt(request, rawParams, info, charges, { keyInChange: held })
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

  return route.change ? answerInChange : answerAroundHandler
}
