// Webhook endpoint operations for staff: create (with its secret, shown once), list, read, change, delete. Brand
// staff manage their brand's endpoints; platform staff manage all.

import {
  brandDirectoryService,
  brandForRecord,
  FieldErrors,
  fieldProblem,
  kernelProblems,
  newId,
  nowIso,
  type PluginContext,
  type RouteDefinition,
  recorded,
  resourceRoutes,
  t,
  unchanged,
} from '../../../core/index.ts'
import { allEvents, Webhook, WebhookWithSecret, webhookScopes } from '../contract.ts'
import type { WebhookEndpointsTable } from '../migrations.ts'
import type { WebhookSettings } from '../options.ts'
import { webhooksProblems } from '../problems.ts'
import {
  deleteEndpoint,
  endpoints,
  failPendingDeliveries,
  insertEndpoint,
  toWebhook,
  updateEndpoint,
} from '../repository.ts'
import { generateSecret } from '../signing.ts'
import { checkWebhookUrl, maxUrlLength } from '../url-guard.ts'

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
  const { secrets } = context

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

  return resourceRoutes({
    item: Webhook,
    name: 'webhook',
    noun: 'endpoint',
    path: '/webhooks',
    key: { id: 'whk' },
    scopes: { read: webhookScopes.read, manage: webhookScopes.manage },
    staff: true,
    table: { rows: endpoints, toItem: toWebhook },
    list: {
      summary: 'List webhook endpoints',
      description: 'Staff only: platform staff see every endpoint, brand staff their brand’s. Oldest first.',
      query: ListWebhooksQuery,
      filters: {
        enabled: (query, enabled: boolean) => query.where('webhook_endpoints.enabled', '=', enabled ? 1 : 0),
      },
      key: 'webhook_endpoints.id',
    },
    read: {
      summary: 'Read a webhook endpoint',
      responses: { 200: { description: 'The endpoint (never its secret).', schema: Webhook } },
    },
    create: {
      summary: 'Add a webhook endpoint',
      description:
        'Staff only. Events of the chosen kinds are POSTed to the URL, signed per Standard Webhooks with the secret in this answer (shown this once, sent with `Cache-Control: no-store`). Brand staff’s endpoints receive only their brand’s events; platform staff’s receive every event unless `brandId` narrows them.',
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
      record: {
        event: null,
        details: ({ url, events, enabled, brandId }) => ({ url, events, enabled, brandId }),
      },
      // The URL's host is resolved, and the brand looked up, before the transaction: neither may hold it.
      async prepare({ body, caller }) {
        const events = checkedEvents(body.events)
        // The directory is looked up only when a brand is named: a panel without a brands plugin serves the rest.
        const brandId = await brandForRecord(
          caller,
          body.brandId,
          () => context.use(brandDirectoryService),
          'none',
        )
        return { events, brandId, url: await checkedUrl(body.url), secret: generateSecret() }
      },
      async handler({ trx, body, prepared: { events, brandId, url, secret } }) {
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
        await insertEndpoint(trx, row)
        return { ...toWebhook(row), secret }
      },
    },
    update: {
      summary: 'Change a webhook endpoint',
      description:
        'Changes the URL (checked again), the event kinds, the description, or `enabled`. Disabling fails the pending deliveries; enabling clears `disabledReason`.',
      body: UpdateWebhookBody,
      problems: urlProblems,
      record: { event: null },
      prepare: async ({ body }) => ({
        events: body.events === undefined ? undefined : checkedEvents(body.events),
        url: body.url === undefined ? undefined : await checkedUrl(body.url),
      }),
      async handler({ trx, row, body, prepared: { events, url } }) {
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
        if (Object.keys(changes).length === 0) return unchanged(toWebhook(row))
        const updated = await updateEndpoint(trx, row.id, { ...changes, updated_at: nowIso() })
        if (changes.enabled === 0)
          await failPendingDeliveries(trx, row.id, 'the endpoint was disabled by staff')
        return recorded(toWebhook(updated), {
          details: {
            ...(changes.url !== undefined ? { url: changes.url } : {}),
            ...(events !== undefined && changes.events !== undefined ? { events } : {}),
            ...(changes.description !== undefined ? { description: changes.description } : {}),
            ...(changes.enabled !== undefined ? { enabled: changes.enabled === 1 } : {}),
          },
        })
      },
    },
    remove: {
      summary: 'Delete a webhook endpoint',
      description: 'Removes the endpoint and its delivery log; nothing more is sent to it.',
      responses: { 204: { description: 'Deleted.' } },
      record: { event: null, details: ({ url }) => ({ url }) },
      async handler({ trx, row }) {
        await deleteEndpoint(trx, row.id)
        return toWebhook(row)
      },
    },
  })
}
