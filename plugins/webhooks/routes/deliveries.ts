// The delivery log of an endpoint: every event sent to it with the outcome of its latest attempt, and redelivery.

import {
  defineRoute,
  idPattern,
  kernelProblems,
  newId,
  nowIso,
  type PluginContext,
  Problem,
  pageOf,
  pageQuery,
  Reply,
  type RouteDefinition,
  t,
} from '../../../core/index.ts'
import { deliveryStatuses, WebhookDelivery, webhookScopes } from '../contract.ts'
import { webhooksProblems } from '../problems.ts'
import { deliveriesOf, findDelivery, insertDelivery, newDeliveryRow, toDelivery } from '../repository.ts'
import { visibleEndpoint, WebhookParams } from './visible-endpoint.ts'

const DeliveryParams = t.Object({
  ...WebhookParams.properties,
  deliveryId: t.String({ pattern: idPattern('whd'), description: 'Delivery id, `whd_…`.' }),
})

const ListDeliveriesQuery = t.Object({
  ...pageQuery,
  status: t.Optional(
    t.Union(
      deliveryStatuses.map((status) => t.Literal(status)),
      { description: 'Only deliveries in this state.' },
    ),
  ),
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
      params: WebhookParams,
      query: ListDeliveriesQuery,
      responses: {
        200: {
          description: 'A page of deliveries.',
          schema: pageOf(WebhookDelivery, 'WebhookDeliveryPage'),
        },
      },
      async handler({ params, query, view, page }) {
        const endpoint = await visibleEndpoint(db, view, params.id)
        const { cursor: _cursor, limit: _limit, ...filters } = query
        let deliveries = deliveriesOf(db, endpoint.id)
        if (filters.status !== undefined) deliveries = deliveries.where('status', '=', filters.status)
        if (filters.eventType !== undefined)
          deliveries = deliveries.where('event_type', '=', filters.eventType)
        if (filters.eventId !== undefined) deliveries = deliveries.where('event_id', '=', filters.eventId)
        const { rows, nextCursor } = await page(deliveries, {
          keyColumn: 'webhook_deliveries.id',
          keyOf: (row) => row.id,
          order: 'desc',
          filters,
        })
        return { items: rows.map(toDelivery), nextCursor }
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
        const endpoint = await visibleEndpoint(db, view, params.id)
        const row = await findDelivery(db, endpoint.id, params.deliveryId)
        if (!row) throw new Problem(kernelProblems.not_found)
        return toDelivery(row)
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/webhooks/:id/deliveries/:deliveryId/redeliver',
      operationId: 'redeliverWebhookDelivery',
      idempotent: true,
      summary: 'Send a delivery again',
      description:
        'Queues a new delivery of the same event with the same body and the same `webhook-id` (receivers deduplicate on it), signed afresh; it is tried at once and retried on failure like any delivery. The endpoint must be enabled.',
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
          const endpoint = await visibleEndpoint(trx, view, params.id)
          const original = await findDelivery(trx, endpoint.id, params.deliveryId)
          if (!original) throw new Problem(kernelProblems.not_found)
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
