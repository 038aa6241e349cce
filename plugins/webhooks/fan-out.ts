// Turns each outbox event into one pending delivery per subscribed endpoint, inside the dispatcher's transaction:
// an event is fanned out exactly once, or again after a crash, never lost between commit and delivery.

import { type EventConsumer, newId, nowIso, type OutboxEvent, type Store } from '../../core/index.ts'
import { endpointsFor, insertDelivery, newDeliveryRow } from './repository.ts'
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
  return {
    name: 'webhooks',
    async receive(trx, event) {
      const endpoints = await endpointsFor(trx, event)
      if (endpoints.length === 0) return
      const payload = payloadOf(event)
      const now = nowIso()
      for (const endpoint of endpoints) {
        await insertDelivery(
          trx,
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
      await deliveriesQueued(store, trx)
    },
    dispatched: queued,
  }
}
