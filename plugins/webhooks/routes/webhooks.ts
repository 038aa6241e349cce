// Webhook endpoint operations for staff: create (with its secret, shown once), list, read, change, delete. Brand
// staff manage their brand's endpoints; platform staff manage all.

import {
  brandDirectoryService,
  brandForRecord,
  defineRoute,
  FieldErrors,
  fieldProblem,
  kernelProblems,
  newId,
  nowIso,
  type PluginContext,
  Reply,
  type RouteDefinition,
  t,
} from '../../../core/index.ts'
import { allEvents, Webhook, WebhookWithSecret, webhookScopes } from '../contract.ts'
import type { WebhookEndpointsTable } from '../migrations.ts'
import type { WebhookSettings } from '../options.ts'
import { webhooksProblems } from '../problems.ts'
import {
  deleteEndpoint,
  failPendingDeliveries,
  findVisibleEndpoint,
  insertEndpoint,
  toWebhook,
  updateEndpoint,
  visibleEndpoints,
} from '../repository.ts'
import { generateSecret } from '../signing.ts'
import { checkWebhookUrl, maxUrlLength } from '../url-guard.ts'

const WebhookParams = { id: 'whk' } as const

const Url = t.String({
  minLength: 1,
  maxLength: maxUrlLength,
  description:
    'Where events are POSTed: an absolute `https://` URL whose host resolves only to public addresses (plain http and private addresses only for hosts in `WEBHOOK_ALLOWED_HOSTS`).',
  examples: ['https://billing.example.com/plinth/webhooks'],
})
const Events = t.Array(t.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1,
  maxItems: 100,
  uniqueItems: true,
  description: 'Event kinds to receive (`site.created`, `job.finished`, ...), or `["*"]` for every kind.',
  examples: [['site.created', 'job.finished']],
})
const Description = t.Union([t.String({ maxLength: 500 }), t.Null()], {
  description: 'A note for people (what the endpoint is for); null for none.',
})

const CreateWebhookBody = t.Object(
  {
    url: Url,
    events: Events,
    enabled: t.Optional(t.Boolean({ description: 'Default true.' })),
    description: t.Optional(Description),
    brandId: t.Optional(
      t.String({
        maxLength: 64,
        description:
          'Platform staff only: make it the brand’s endpoint, receiving only that brand’s events and managed by the brand’s staff as their own. Brand staff’s endpoints are always their brand’s.',
      }),
    ),
  },
  { $id: 'CreateWebhookBody' },
)

const UpdateWebhookBody = t.Object(
  {
    url: t.Optional(Url),
    events: t.Optional(Events),
    enabled: t.Optional(
      t.Boolean({
        description:
          'false stops deliveries (pending ones fail); true re-enables an endpoint, also one the panel disabled after a 410.',
      }),
    ),
    description: t.Optional(Description),
  },
  { $id: 'UpdateWebhookBody', description: 'Fields to change; omitted ones stay as they are.' },
)

const ListWebhooksQuery = t.Object({
  enabled: t.Optional(t.Boolean({ description: 'Only enabled (true) or disabled (false) endpoints.' })),
})

/** The endpoint routes; `settings` carries the SSRF policy every saved URL is checked against. */
export function webhookRoutes(context: PluginContext, settings: WebhookSettings): RouteDefinition[] {
  const { db, transaction, secrets } = context

  /** The URL checked by the SSRF guard (DNS included): the URL as stored, or a 422 at `body.url`. */
  async function checkedUrl(raw: string): Promise<string> {
    // A name server that does not answer must not hold the request: the delivery timeout bounds the lookup too.
    const check = await checkWebhookUrl(raw, settings.policy, AbortSignal.timeout(settings.timeoutMs))
    if (!check.ok) throw fieldProblem(webhooksProblems[check.refusal.code], 'body.url', check.refusal.message)
    return check.target.url.href
  }

  /** The subscribed kinds, each known to the panel or `*`; `["*"]` when the wildcard is among them. */
  function checkedEvents(events: readonly string[]): string[] {
    const known = new Set(context.knownEvents().map((event) => event.kind))
    const refusals = new FieldErrors()
    let refused = false
    events.forEach((kind, index) => {
      if (kind === allEvents || known.has(kind)) return
      refused = true
      refusals.add(
        webhooksProblems.unknown_event_kind,
        `body.events.${index}`,
        `"${kind}" is not an event kind of this installation`,
      )
    })
    if (refused) throw refusals.toProblem()
    return events.includes(allEvents) ? [allEvents] : [...events]
  }

  const urlProblems = [
    webhooksProblems.invalid_webhook_url,
    webhooksProblems.webhook_url_not_https,
    webhooksProblems.webhook_address_not_public,
    webhooksProblems.webhook_host_unresolvable,
    webhooksProblems.unknown_event_kind,
  ]

  return [
    defineRoute({
      method: 'POST',
      path: '/webhooks',
      operationId: 'createWebhook',
      idempotent: true,
      summary: 'Add a webhook endpoint',
      description:
        'Staff only. Events of the chosen kinds are POSTed to the URL, signed per Standard Webhooks with the secret in this answer (shown this once, sent with `Cache-Control: no-store`). Brand staff’s endpoints receive only their brand’s events; platform staff’s receive every event unless `brandId` narrows them.',
      scope: webhookScopes.manage,
      staff: true,
      body: CreateWebhookBody,
      showsSecret: true,
      responses: {
        201: {
          description: 'The new endpoint, with its signing secret (shown once).',
          schema: WebhookWithSecret,
          headers: { Location: 'URL of the endpoint.' },
        },
      },
      problems: [...urlProblems, kernelProblems.unknown_brand],
      async handler({ body, caller, audit }) {
        const events = checkedEvents(body.events)
        // The directory is looked up only when a brand is named: a panel without a brands plugin serves the rest.
        const brandId = await brandForRecord(
          caller,
          body.brandId,
          () => context.use(brandDirectoryService),
          'none',
        )
        const url = await checkedUrl(body.url)
        const secret = generateSecret()
        const now = nowIso()
        const row: WebhookEndpointsTable = {
          id: newId('whk'),
          brand_id: brandId,
          url,
          description: body.description ?? null,
          events: JSON.stringify(events),
          enabled: body.enabled === false ? 0 : 1,
          disabled_reason: null,
          secret_sealed: secrets.seal(secret),
          retired_secrets: '[]',
          created_at: now,
          updated_at: now,
        }
        await transaction(async (trx) => {
          await insertEndpoint(trx, row)
          await audit(trx, {
            action: 'webhook.create',
            subject: { type: 'webhook', id: row.id },
            customerId: null,
            brandId,
            details: { url, events, enabled: row.enabled === 1, brandId },
          })
        })
        return Reply.created({ ...toWebhook(row), secret }, `/webhooks/${row.id}`)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/webhooks',
      operationId: 'listWebhooks',
      summary: 'List webhook endpoints',
      description: 'Staff only: platform staff see every endpoint, brand staff their brand’s. Oldest first.',
      scope: webhookScopes.read,
      staff: true,
      query: ListWebhooksQuery,
      list: { item: Webhook, key: 'webhook_endpoints.id', toItem: toWebhook },
      handler({ query, view }) {
        const endpoints = visibleEndpoints(db, view)
        if (query.enabled === undefined) return endpoints
        return endpoints.where('webhook_endpoints.enabled', '=', query.enabled ? 1 : 0)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/webhooks/:id',
      operationId: 'getWebhook',
      summary: 'Read a webhook endpoint',
      scope: webhookScopes.read,
      staff: true,
      params: WebhookParams,
      responses: { 200: { description: 'The endpoint (never its secret).', schema: Webhook } },
      handler: async ({ params, view }) => toWebhook(await findVisibleEndpoint(db, view, params.id)),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/webhooks/:id',
      operationId: 'updateWebhook',
      summary: 'Change a webhook endpoint',
      description:
        'Changes the URL (checked again), the event kinds, the description, or `enabled`. Disabling fails the pending deliveries; enabling clears `disabledReason`.',
      scope: webhookScopes.manage,
      staff: true,
      params: WebhookParams,
      body: UpdateWebhookBody,
      responses: { 200: { description: 'The endpoint after the change.', schema: Webhook } },
      problems: urlProblems,
      async handler({ params, body, view, audit }) {
        const events = body.events === undefined ? undefined : checkedEvents(body.events)
        const url = body.url === undefined ? undefined : await checkedUrl(body.url)
        return transaction(async (trx) => {
          const row = await findVisibleEndpoint(trx, view, params.id)
          const changes: Partial<WebhookEndpointsTable> = {}
          if (url !== undefined && url !== row.url) changes.url = url
          if (events !== undefined && JSON.stringify(events) !== row.events)
            changes.events = JSON.stringify(events)
          if (body.description !== undefined && body.description !== row.description)
            changes.description = body.description
          const enabled = body.enabled === undefined ? undefined : body.enabled ? 1 : 0
          if (enabled !== undefined && enabled !== row.enabled) {
            changes.enabled = enabled
            changes.disabled_reason = null
          }
          if (Object.keys(changes).length === 0) return toWebhook(row)
          const updated = await updateEndpoint(trx, row.id, { ...changes, updated_at: nowIso() })
          if (changes.enabled === 0)
            await failPendingDeliveries(trx, row.id, 'the endpoint was disabled by staff')
          await audit(trx, {
            action: 'webhook.update',
            subject: { type: 'webhook', id: row.id },
            customerId: null,
            brandId: row.brand_id,
            details: {
              ...(changes.url !== undefined ? { url: changes.url } : {}),
              ...(events !== undefined && changes.events !== undefined ? { events } : {}),
              ...(changes.description !== undefined ? { description: changes.description } : {}),
              ...(changes.enabled !== undefined ? { enabled: changes.enabled === 1 } : {}),
            },
          })
          return toWebhook(updated)
        })
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/webhooks/:id',
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook endpoint',
      description: 'Removes the endpoint and its delivery log; nothing more is sent to it.',
      scope: webhookScopes.manage,
      staff: true,
      params: WebhookParams,
      responses: { 204: { description: 'Deleted.' } },
      async handler({ params, view, audit }) {
        await transaction(async (trx) => {
          const row = await findVisibleEndpoint(trx, view, params.id)
          await deleteEndpoint(trx, row.id)
          await audit(trx, {
            action: 'webhook.delete',
            subject: { type: 'webhook', id: row.id },
            customerId: null,
            brandId: row.brand_id,
            details: { url: row.url },
          })
        })
        return Reply.noContent()
      },
    }),
  ]
}
