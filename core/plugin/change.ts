// A change a route declares: the kernel runs its handler in one transaction and records the change there (its
// audit entry and event, the customer it is for and the usage it counts), with what only the handler knows returned
// beside the resource.

import type { ProblemRef } from '../problem/problem-code.ts'

/** A usage metric as a change counts it: a plugin's `usage` entry (`UsageMetricDefinition`). */
export interface CountedMetric {
  readonly name: string
  readonly quota?: { readonly problem: ProblemRef }
}

/** A resource as a change's declarations read it. */
export type ChangedResource = Readonly<Record<string, unknown>>

/**
 * A change the kernel records for the route: the handler runs inside one transaction (its input's `trx`) and
 * returns the resource it changed (an object with `id`, and `customerId` or `brandId` when it has them); in that
 * same transaction the kernel writes the audit entry (`action`, subject type from the action, subject id from the
 * resource) and puts `event` (one of the plugin's kinds) in the outbox with the resource as its data. Then it
 * answers as the route's responses say: 204 without a body, 201 with the resource and `Location` (the request
 * path and the id), 202 with the resource, else 200 with the resource; a handler that returns a `Reply` answers
 * that instead (its body is the resource recorded). With an `Idempotency-Key` (on an `idempotent` route), the
 * key's claim and its kept answer are written in that same transaction: one commit a create.
 *
 * What only the handler knows goes in what it returns: `recorded(resource, { details })` for details of the change
 * (what it was before), `unchanged(resource)` when the request changed nothing (no audit entry, no event).
 * @example change: { action: 'cron.create', event: 'cron.created' }
 */
export interface ChangeDeclaration {
  /** `<resource>.<verb>`: `cron.create`. */
  readonly action: string
  /** An event kind of the plugin: `cron.created`. None: only the audit entry. */
  readonly event?: string
  /** What the audit entry says of the change besides its subject (without secrets): made from the resource. */
  readonly details?: (resource: ChangedResource) => Readonly<Record<string, unknown>>
  /**
   * What the event carries, made from the resource the handler returned: for an answer that shows a secret once
   * (a generated password), the resource without it. Default: the resource as returned.
   */
  readonly payload?: (resource: ChangedResource) => Readonly<Record<string, unknown>>
  /**
   * The audit entry's subject when it is not the resource itself: a member is the user it makes a member
   * (`{ type: 'user', id: member.userId }`), a site's certificate is the site's. Default: the action's resource
   * (`cron` of `cron.create`) and the resource's `id`.
   */
  readonly subject?: (resource: ChangedResource) => { readonly type: string; readonly id: string }
  /**
   * The body field naming the customer the change is for (`customerId`): before the handler, in its transaction,
   * the kernel checks it names a customer the caller may see with the route's scope, else answers 422
   * `unknown_customer` at `body.<field>` (a missing customer and one out of view alike), and that its deletion has
   * not started, else answers 409 `customer_deleting` (`tenancy.close`). Both documented by themselves.
   */
  readonly customer?: string
  /**
   * A usage metric of the plugin the change counts for the resource's customer (`customerId`), in its
   * transaction after the handler: `+1` (a create) first reserves it under the customer's limits, refusing with the
   * metric's problem past them and `customer_suspended` for a suspended customer (both documented by themselves);
   * `-1` (a deletion) gives it back. Nothing when the handler returns `unchanged(…)`.
   * @example usage: { metric: dnsZones, delta: 1 }
   */
  readonly usage?: { readonly metric: CountedMetric; readonly delta: number }
}

/** What a change's audit entry says beyond its declaration, known only to the handler. */
export interface RecordedAudit {
  /** Replaces the declaration's `details`: what changed, from what (without secrets). */
  readonly details?: Readonly<Record<string, unknown>>
  /** The customer concerned, when the resource does not carry it as `customerId`. */
  readonly customerId?: string | null
  /** The brand of a record that belongs to no customer, when the resource does not carry it as `brandId`. */
  readonly brandId?: string | null
  /** The audit entry's subject, when the declaration cannot make it from the resource. */
  readonly subject?: { readonly type: string; readonly id: string }
}

/** A change route's answer with what only its handler knows of the record; see {@link recorded}, {@link unchanged}. */
export class Recorded {
  constructor(
    /** The resource changed, or a `Reply` whose body is. */
    readonly answer: unknown,
    /** What the audit entry says beyond the declaration; null when nothing changed (nothing is recorded). */
    readonly audit: RecordedAudit | null,
  ) {}
}

/**
 * A change route's resource (or `Reply`) with what its audit entry says beyond the declaration.
 * @example return recorded(toPlan(updated), { details: { from: row.status, to: updated.status } })
 */
export function recorded(answer: unknown, audit: RecordedAudit): Recorded {
  return new Recorded(answer, audit)
}

/**
 * A change route's resource (or `Reply`) when the request changed nothing (a PATCH repeating what is there):
 * answered as usual, with no audit entry and no event.
 * @example if (Object.keys(changes).length === 0) return unchanged(toPlan(row))
 */
export function unchanged(answer: unknown): Recorded {
  return new Recorded(answer, null)
}
