// The handler's run: on a route declaring `change`, inside one transaction with the change's audit entry, its event
// and (with an Idempotency-Key) the key's claim and kept answer; under the contract checks in test panels.

import { customerInView } from '../auth/caller.ts'
import {
  type IdempotencyClaim,
  type KeptAnswer,
  keepAnswerWith,
  keptAnswerOf,
} from '../idempotency/idempotency-keys.ts'
import { type ChangeDeclaration, Recorded, type RecordedAudit } from '../plugin/change.ts'
import { Reply } from '../plugin/route.ts'
import { changesState } from '../plugin/route-problems.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { fieldProblem, Problem } from '../problem/problem.ts'
import type { Trx } from '../store/store.ts'
import { tenantClosing } from '../tenancy/tenants.ts'
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
export function handlerRunner({ route, label, runtime, eventKinds, plugin }: RouteUnderway) {
  const { change } = route
  if (change && !eventKinds.has(change.event ?? '') && change.event !== undefined)
    throw new Error(`${label} records the event "${change.event}", which its plugin does not declare`)
  const subjectType = change?.action.split('.')[0] ?? ''
  const checks = runtime.contractChecks
  const counters = change?.usage ? runtime.countersOf?.(plugin) : undefined
  if (change?.usage && !counters) throw new Error(`${label} counts usage, which this panel cannot count`)

  /**
   * The declared customer of the body, in the caller's view (else 422 at its field), and open: one whose deletion
   * started takes nothing new (409 `customer_deleting`).
   */
  async function checkCustomer(trx: Trx, input: HandlerInputOf, field: string): Promise<void> {
    const customerId = (input.body as Record<string, unknown> | undefined)?.[field]
    const view = input.view ?? { kind: 'customers', customerIds: [] }
    if (typeof customerId !== 'string' || !(await customerInView(trx, view, customerId)))
      throw fieldProblem(kernelProblems.unknown_customer, `body.${field}`)
    if (await tenantClosing(trx, customerId)) throw new Problem(kernelProblems.customer_deleting)
  }

  /** Counts the declared usage for the resource's customer: reserved under its limits when it grows. */
  async function count(trx: Trx, declared: ChangeDeclaration, resource: Record<string, unknown>) {
    const { metric, delta } = declared.usage ?? { metric: { name: '' }, delta: 0 }
    const customerId = resource.customerId
    if (typeof customerId !== 'string')
      throw new Error(`${label} counts ${metric.name} but returned no resource with a customerId`)
    if (delta > 0 && metric.quota)
      await counters?.quotas.reserve(trx, { customerId, amounts: { [metric.name]: delta } })
    await counters?.usage.adjust(trx, customerId, metric.name, delta)
  }

  /** Writes the change's audit entry and event in `trx`, for the resource its handler returned. */
  async function record(
    trx: Trx,
    input: HandlerInputOf,
    declared: ChangeDeclaration,
    resource: Record<string, unknown>,
    extra: RecordedAudit | undefined,
  ): Promise<void> {
    if (typeof resource?.id !== 'string' && !extra?.subject && !declared.subject)
      throw new Error(`${label} declares a change but returned no resource with an id`)
    const customerId =
      extra?.customerId !== undefined
        ? extra.customerId
        : typeof resource.customerId === 'string'
          ? resource.customerId
          : null
    const brandId =
      extra?.brandId !== undefined
        ? extra.brandId
        : typeof resource.brandId === 'string'
          ? resource.brandId
          : null
    const details = extra?.details ?? declared.details?.(resource)
    await input.audit(trx, {
      action: declared.action,
      subject: extra?.subject ??
        declared.subject?.(resource) ?? { type: subjectType, id: String(resource.id) },
      customerId,
      brandId,
      ...(details ? { details } : {}),
    })
    if (declared.event) {
      const data = declared.payload ? declared.payload(resource) : resource
      await input.emit(trx, { kind: declared.event, customerId, data })
    }
  }

  /**
   * The handler of a route declaring `change`: in one transaction with its audit entry and event, and with an
   * Idempotency-Key, its claim and kept answer (`render` makes the answer the client gets, inside the transaction).
   */
  function inChange(input: HandlerInputOf, keyed: KeyedChange | null, prepared: unknown): Promise<unknown> {
    if (!change) return Promise.resolve(route.handler(input))
    return runtime.store.transaction(async (trx) => {
      const claim = keyed?.held.claim
      if (keyed && claim) {
        const kept = await keptAnswerOf(trx, claim)
        if (kept) throw new KeptAlready(kept)
        keyed.held.claimed = true
      }
      if (change.customer) await checkCustomer(trx, input, change.customer)
      const handled = await route.handler({ ...input, trx, prepared })
      const returned = handled instanceof Recorded ? handled.answer : handled
      const resource = (returned instanceof Reply ? returned.body : returned) as Record<string, unknown>
      if (!(handled instanceof Recorded && handled.audit === null)) {
        const extra = handled instanceof Recorded ? (handled.audit ?? undefined) : undefined
        if (change.usage) await count(trx, change, resource)
        await record(trx, input, change, resource, extra)
      }
      if (!keyed || !claim) return returned
      const answer = keyed.render(returned)
      await keepAnswerWith(trx, claim, answer)
      return answer
    })
  }

  /** The change's work outside the store first (`prepare`), then the change; `undo` when the change fails. */
  async function prepareThenChange(input: HandlerInputOf, keyed: KeyedChange | null): Promise<unknown> {
    if (!route.prepare) return inChange(input, keyed, undefined)
    const prepared = await route.prepare(input)
    try {
      return await inChange(input, keyed, prepared)
    } catch (error) {
      await route.undo?.(prepared, error)
      throw error
    }
  }

  return {
    /** Runs the handler (recorded, on a change route), under the contract checks in test panels. */
    async run(input: HandlerInputOf, info: RequestInfo, keyed: KeyedChange | null): Promise<unknown> {
      if (!checks || !changesState(route) || route.audited === false) return prepareThenChange(input, keyed)
      const { result, wrote } = await checks.tracking(async () => prepareThenChange(input, keyed))
      if (wrote && !(await checks.audited(info.requestId)))
        throw new Error(
          `${label} changed the store without writing an audit entry (or declare audited: false)`,
        )
      return result
    },

    /**
     * The answer of a recorded change that returned the resource itself: 204, 201 with `Location`, 202, or 200.
     * A handler outside a change returning `recorded(...)` is a mistake its tests find at once.
     */
    replyOf(result: unknown, rawParams: Record<string, string>): unknown {
      if (result instanceof Recorded)
        throw new Error(`${label} returned recorded() without declaring a change`)
      if (!change || result instanceof Reply) return result
      if (route.responses?.[204]) return Reply.noContent()
      if (route.responses?.[202]) return Reply.accepted(result)
      if (!route.responses?.[201]) return result
      const collection = route.path.replace(/:([^/]+)/g, (_match, name: string) => rawParams[name] ?? '')
      return Reply.created(result, `${collection}/${(result as { id: string }).id}`)
    },
  }
}
