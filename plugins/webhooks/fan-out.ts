// Turns each outbox event into one pending delivery per subscribed endpoint, inside the dispatcher's transaction:
// an event is fanned out exactly once, or again after a crash, never lost between commit and delivery. A batch of
// events costs one query for the endpoints and one insert per hundred deliveries, however many events it holds.

import {
  type EventConsumer,
  newId,
  nowIso,
  type OutboxEvent,
  type Store,
  type Trx,
} from '../../core/index.ts'
import type { WebhookDeliveriesTable } from './migrations.ts'
import { endpointsForEvents, insertDeliveries, newDeliveryRow } from './repository.ts'
import { deliveriesQueued } from './wake-ups.ts'

/** The body every delivery of an event sends: `{ id, type, timestamp, data }` (DESIGN.md, Standard Webhooks). */
export function payloadOf(event: OutboxEvent): string {
  return JSON.stringify({ id: event.id, type: event.kind, timestamp: event.occurredAt, data: event.data })
}

/**
 * The consumer the webhooks plugin registers: the delivery loops of every instance on `store` are told when the
 * batch commits, and `queued` wakes this instance's at once.
 */
export function webhookFanOut(store: Store, queued: () => void): EventConsumer {
  /** Whether a batch queued deliveries since the loop was last woken: a batch that queued none wakes nothing. */
  let queuedSome = false
  async function fanOut(trx: Trx, events: readonly OutboxEvent[]): Promise<void> {
    const endpointsOf = await endpointsForEvents(trx, events)
    const now = nowIso()
    const rows: WebhookDeliveriesTable[] = []
    for (const event of events) {
      const endpoints = endpointsOf(event)
      if (endpoints.length === 0) continue
      const payload = payloadOf(event)
      for (const endpoint of endpoints)
        rows.push(
          newDeliveryRow(
            {
              id: newId('whd'),
              endpoint_id: endpoint.id,
              event_id: event.id,
              event_type: event.kind,
              payload,
            },
            now,
          ),
        )
    }
    if (rows.length === 0) return
    await insertDeliveries(trx, rows)
    await deliveriesQueued(store, trx)
    queuedSome = true
  }
  return {
    name: 'webhooks',
    receive: (trx, event) => fanOut(trx, [event]),
    receiveBatch: fanOut,
    dispatched() {
      if (!queuedSome) return
      queuedSome = false
      queued()
    },
  }
}
