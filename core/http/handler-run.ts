// The handler's run: on a route declaring `change`, inside one transaction with the change's audit entry, its event
// and (with an Idempotency-Key) the key's claim and kept answer; under the contract checks in test panels.

import {
  type IdempotencyClaim,
  type KeptAnswer,
  keepAnswerWith,
  keptAnswerOf,
} from '../idempotency/idempotency-keys.ts'
import { Reply } from '../plugin/route.ts'
import { changesState } from '../plugin/route-problems.ts'
import type { HandlerInputOf } from './handler-input.ts'
import type { RequestInfo, RouteUnderway } from './route-runtime.ts'

/**
 * An Idempotency-Key on a route whose change the kernel runs: the claim, the change and the kept answer are one
 * transaction. `claimed` says the key was found free (so a refusal afterwards is the request's, and is kept).
 */
export interface KeyInChange {
  readonly key: string
  claim: IdempotencyClaim | null
  claimed: boolean
}

/** Thrown inside a change's transaction whose key already holds an answer: rolls it back, and that answer is sent. */
export class KeptAlready {
  constructor(readonly answer: KeptAnswer) {}
}

/** A key held in a change's transaction, and how the answer kept under it is made (inside the transaction). */
export interface KeyedChange {
  readonly held: KeyInChange
  readonly render: (result: unknown) => KeptAnswer
}

/** Runs the handlers of one route. */
export function handlerRunner({ route, label, runtime, eventKinds }: RouteUnderway) {
  const { change } = route
  if (change && !eventKinds.has(change.event ?? '') && change.event !== undefined)
    throw new Error(`${label} records the event "${change.event}", which its plugin does not declare`)
  const subjectType = change?.action.split('.')[0] ?? ''
  const checks = runtime.contractChecks

  /**
   * The handler of a route declaring `change`: in one transaction with its audit entry and event, and with an
   * Idempotency-Key, its claim and kept answer (`render` makes the answer the client gets, inside the transaction).
   */
  function recorded(input: HandlerInputOf, keyed: KeyedChange | null): Promise<unknown> {
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

  return {
    /** Runs the handler (recorded, on a change route), under the contract checks in test panels. */
    async run(input: HandlerInputOf, info: RequestInfo, keyed: KeyedChange | null): Promise<unknown> {
      if (!checks || !changesState(route) || route.audited === false) return recorded(input, keyed)
      const { result, wrote } = await checks.tracking(async () => recorded(input, keyed))
      if (wrote && !(await checks.audited(info.requestId)))
        throw new Error(
          `${label} changed the store without writing an audit entry (or declare audited: false)`,
        )
      return result
    },

    /** The answer of a recorded change that returned the resource itself: 204, 201 with `Location`, or 200. */
    replyOf(result: unknown, rawParams: Record<string, string>): unknown {
      if (!change || result instanceof Reply) return result
      if (route.responses?.[204]) return Reply.noContent()
      if (!route.responses?.[201]) return result
      const collection = route.path.replace(/:([^/]+)/g, (_match, name: string) => rawParams[name] ?? '')
      return Reply.created(result, `${collection}/${(result as { id: string }).id}`)
    },
  }
}
