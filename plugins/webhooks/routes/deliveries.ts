// The delivery log of an endpoint: every event sent to it with the outcome of its latest attempt, and redelivery.

import {
  defineRoute,
  enumOf,
  newId,
  nowIso,
  type PluginContext,
  Problem,
  Reply,
  type RouteDefinition,
  t,
} from '../../../core/index.ts'
import { deliveryStatuses, WebhookDelivery, webhookScopes } from '../contract.ts'
import { webhooksProblems } from '../problems.ts'
import {
  deliveriesOf,
  endpoints,
  findDelivery,
  insertDelivery,
  newDeliveryRow,
  toDelivery,
} from '../repository.ts'

const DeliveryParams = { id: 'whk', deliveryId: 'whd' } as const

const ListDeliveriesQuery = t.Object({
  status: t.Optional(enumOf(deliveryStatuses, { description: 'Only deliveries in this state.' })),
  eventType: t.Optional(t.String({ maxLength: 100, description: 'Only deliveries of this event kind.' })),
  eventId: t.Optional(t.String({ maxLength: 64, description: 'Only deliveries of this event, `evt_…`.' })),
})

/** The delivery log routes; `wake` starts the delivery loop at once for a redelivery. */
export function deliveryRoutes(context: PluginContext, wake: () => void): RouteDefinition[] {
  const { db, transaction } = context

  return [
    defineRoute({
      method: 'GET',
      path: '/webhooks/:id/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: 'List an endpoint’s deliveries',
      description:
        'Newest first: each event sent (or to be sent) to the endpoint, with its state, attempts, and the status code, error and duration of its latest attempt.',
      scope: webhookScopes.read,
      staff: true,
      params: { id: 'whk' },
      query: ListDeliveriesQuery,
      list: {
        item: WebhookDelivery,
        key: 'webhook_deliveries.id',
        order: 'desc',
        toItem: toDelivery,
        filters: { status: 'status', eventType: 'event_type', eventId: 'event_id' },
      },
      async handler({ params, view }) {
        const endpoint = await endpoints.find(db, view, params.id)
        return deliveriesOf(db, endpoint.id)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/webhooks/:id/deliveries/:deliveryId',
      operationId: 'getWebhookDelivery',
      summary: 'Read one delivery',
      scope: webhookScopes.read,
      staff: true,
      params: DeliveryParams,
      responses: { 200: { description: 'The delivery.', schema: WebhookDelivery } },
      async handler({ params, view }) {
        const endpoint = await endpoints.find(db, view, params.id)
        return toDelivery(await findDelivery(db, endpoint.id, params.deliveryId))
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/webhooks/:id/deliveries/:deliveryId/redeliver',
      operationId: 'redeliverWebhookDelivery',
      idempotent: true,
      summary: 'Send a delivery again',
      description:
        'Queues a new delivery of the same event with the same body and the same `webhook-id` (receivers deduplicate on it), signed afresh; it is tried at once and retried on failure like any delivery. The endpoint must be enabled (409 `webhook_disabled`).',
      scope: webhookScopes.manage,
      staff: true,
      params: DeliveryParams,
      responses: {
        201: {
          description: 'The new delivery, `pending`.',
          schema: WebhookDelivery,
          headers: { Location: 'URL of the new delivery.' },
        },
      },
      problems: [webhooksProblems.webhook_disabled],
      async handler({ params, view, audit }) {
        const delivery = await transaction(async (trx) => {
          const endpoint = await endpoints.find(trx, view, params.id)
          const original = await findDelivery(trx, endpoint.id, params.deliveryId)
          if (endpoint.enabled !== 1) throw new Problem(webhooksProblems.webhook_disabled)
          const row = newDeliveryRow(
            {
              id: newId('whd'),
              endpoint_id: endpoint.id,
              event_id: original.event_id,
              event_type: original.event_type,
              payload: original.payload,
              redelivery_of: original.id,
            },
            nowIso(),
          )
          await insertDelivery(trx, row)
          await audit(trx, {
            action: 'webhook.redeliver',
            subject: { type: 'webhook', id: endpoint.id },
            customerId: null,
            brandId: endpoint.brand_id,
            details: { deliveryId: row.id, redeliveryOf: original.id, eventId: original.event_id },
          })
          return toDelivery(row)
        })
        wake()
        return Reply.created(delivery, `/webhooks/${params.id}/deliveries/${delivery.id}`)
      },
    }),
  ]
}
