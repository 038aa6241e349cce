// The webhooks plugin's public contract: the endpoint and delivery schemas and the plugin's scopes.

import { enumOf, type Static, t } from '../../core/index.ts'

/** Scope names the plugin declares (staff scopes: platform staff and brand staff hold them). */
export const webhookScopes = {
  read: 'webhook:read',
  manage: 'webhook:manage',
} as const

/** States of a delivery: `pending` until an attempt succeeds or the retries run out. */
export const deliveryStatuses = ['pending', 'succeeded', 'failed'] as const
/** A delivery's state. */
export type DeliveryStatus = (typeof deliveryStatuses)[number]

/** The subscription that matches every event kind. */
export const allEvents = '*'

/** A webhook endpoint as the API returns it (never its secret). */
export const Webhook = t.Object(
  {
    id: t.String({ description: 'Identifier, `whk_…`.', examples: ['whk_01JDQ3V6Y4T1ZK0M2N5P7R9S8W'] }),
    url: t.String({ description: 'Where events are POSTed: https (http only for allowed hosts).' }),
    description: t.Union([t.String(), t.Null()], { description: 'A note for people; null when none.' }),
    events: t.Array(t.String(), {
      description: 'The event kinds it receives (`site.created`, ...), or `["*"]` for every kind.',
    }),
    enabled: t.Boolean({ description: 'Disabled endpoints receive nothing; their pending deliveries fail.' }),
    brandId: t.Union([t.String(), t.Null()], {
      description:
        'The brand whose events it receives (brand staff’s endpoints); null for platform staff’s endpoints, which receive every event.',
    }),
    disabledReason: t.Union([t.String(), t.Null()], {
      description:
        'Why the panel disabled it (the endpoint answered 410 Gone); null when enabled or disabled by staff.',
    }),
    previousSecretExpiresAt: t.Union([t.String({ format: 'date-time' }), t.Null()], {
      description:
        'After a rotation, until when the previous secret still signs deliveries beside the new one (24 h); null otherwise.',
    }),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: 'Webhook' },
)
export type Webhook = Static<typeof Webhook>

/** An endpoint with its signing secret: answered only on creation and rotation. */
export const WebhookWithSecret = t.Object(
  {
    ...Webhook.properties,
    secret: t.String({
      description:
        'The signing secret, `whsec_` + base64 (Standard Webhooks): shown this once, kept encrypted. Verify `webhook-signature` with it.',
    }),
  },
  { $id: 'WebhookWithSecret' },
)
export type WebhookWithSecret = Static<typeof WebhookWithSecret>

/** One delivery of one event to one endpoint, with the outcome of its latest attempt. */
export const WebhookDelivery = t.Object(
  {
    id: t.String({ description: 'Identifier, `whd_…`.' }),
    webhookId: t.String({ description: 'The endpoint, `whk_…`.' }),
    eventId: t.String({
      description: 'The event, `evt_…`: the `webhook-id` header, the same on redeliveries.',
    }),
    eventType: t.String({ description: 'The event kind, e.g. `site.created`.' }),
    status: enumOf(deliveryStatuses, {
      description:
        '`pending` (waiting for its next attempt), `succeeded` (a 2xx answer) or `failed` (retries exhausted, a 410, or the endpoint disabled).',
    }),
    attempts: t.Integer({ minimum: 0, description: 'Attempts made so far.' }),
    nextAttemptAt: t.Union([t.String({ format: 'date-time' }), t.Null()], {
      description: 'When it is tried next; null unless pending.',
    }),
    lastAttemptAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
    lastStatusCode: t.Union([t.Integer(), t.Null()], {
      description: 'HTTP status of the latest answer; null when there was none (timeout, network error).',
    }),
    lastError: t.Union([t.String(), t.Null()], {
      description:
        'Why the latest attempt failed, or why the delivery was given up without one (the endpoint was disabled); null after a success or before anything happened.',
    }),
    lastResponseTimeMs: t.Union([t.Integer({ minimum: 0 }), t.Null()], {
      description: 'How long the latest attempt took, in ms.',
    }),
    redeliveryOf: t.Union([t.String(), t.Null()], {
      description: 'The delivery this one repeats (`POST …/redeliver`); null for the original.',
    }),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: 'WebhookDelivery' },
)
export type WebhookDelivery = Static<typeof WebhookDelivery>
