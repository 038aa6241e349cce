// Who receives events from the outbox: consumers run inside the transaction that marks an event dispatched, so an
// event is handed over exactly once or not at all.

import type { TSchema } from '@sinclair/typebox'
import type { Trx } from '../store/store.ts'

/** An event as stored in the outbox. */
export interface OutboxEvent {
  /** `evt_…`; also the `webhook-id` of its deliveries. */
  readonly id: string
  /** `site.created`. */
  readonly kind: string
  readonly occurredAt: string
  /** The customer it concerns; null for installation-wide events. */
  readonly customerId: string | null
  /** The brand of that customer at the time of the event; null for installation-wide events. */
  readonly brandId: string | null
  /** The resource, as the event's payload schema describes it. */
  readonly data: Readonly<Record<string, unknown>>
}

/** A receiver of every event, in outbox order. */
export interface EventConsumer {
  /** For logs: `webhooks`. */
  readonly name: string
  /**
   * Takes the event over in `trx` (e.g. stores a delivery per subscribed endpoint). Throwing rolls the batch back;
   * it is offered again later. Must not do slow work (no network): queue it and do it after `dispatched`. On
   * PostgreSQL `trx` is `read committed` (one instance dispatches at a time, under a lock, so it never fails for
   * another's sake): each statement sees what was committed before it, and a check and the write that depends on
   * it hold together only under `lockRows`.
   */
  receive(trx: Trx, event: OutboxEvent): Promise<void>
  /**
   * Takes a whole batch over in `trx`, in outbox order, in place of `receive` for each event: for a consumer whose
   * work costs less per batch than per event (one query for the batch, one insert of many rows). The same rules as
   * `receive`; throwing rolls the batch back. Default: `receive` for each event.
   */
  receiveBatch?(trx: Trx, events: readonly OutboxEvent[]): Promise<void>
  /** Called after a batch committed: wake whatever delivers what `receive` queued. */
  dispatched?(): void
}

/** An event kind as the panel knows it: who declares it and its payload schema. */
export interface KnownEvent {
  readonly kind: string
  readonly description: string
  readonly payload: TSchema
  /** `kernel` or the declaring plugin. */
  readonly owner: string
}
