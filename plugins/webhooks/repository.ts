// Reads and writes of the webhooks tables; the only file that knows their columns.

import { claimRows, type Db, lockRows, type OutboxEvent, orNotFound, visibleTable } from '../../core/index.ts'
import type { DeliveryStatus, Webhook, WebhookDelivery } from './contract.ts'
import type { WebhookDeliveriesTable, WebhookEndpointsTable, WebhooksTables } from './migrations.ts'
import { retiredSecretsExpireAt } from './secrets.ts'

const tables = (db: Db) => db.withTables<WebhooksTables>()

/** The API form of an endpoint row. */
export function toWebhook(row: WebhookEndpointsTable): Webhook {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as string[],
    enabled: row.enabled === 1,
    brandId: row.brand_id,
    disabledReason: row.disabled_reason,
    previousSecretExpiresAt: retiredSecretsExpireAt(row, new Date()),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

/** The API form of a delivery row. */
export function toDelivery(row: WebhookDeliveriesTable): WebhookDelivery {
  return {
    id: row.id,
    webhookId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
    lastAttemptAt: row.last_attempt_at,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    lastResponseTimeMs: row.last_response_ms,
    redeliveryOf: row.redelivery_of,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

/**
 * Endpoints as staff views reach them: platform staff see every endpoint, brand staff their brand's; a view of
 * some customers (never given to staff routes) sees none.
 */
export const endpoints = visibleTable(tables, 'webhook_endpoints', { brandColumn: 'brand_id' })

/** The endpoint row with this id, or undefined (no tenancy: for the delivery loop). */
export function findEndpointRow(db: Db, id: string): Promise<WebhookEndpointsTable | undefined> {
  return tables(db).selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst()
}

/** Stores a new endpoint. */
export async function insertEndpoint(db: Db, row: WebhookEndpointsTable): Promise<void> {
  await tables(db).insertInto('webhook_endpoints').values(row).execute()
}

/** Changes columns of an endpoint; returns the row after the change. */
export async function updateEndpoint(
  db: Db,
  id: string,
  changes: Partial<Omit<WebhookEndpointsTable, 'id' | 'brand_id' | 'created_at'>>,
): Promise<WebhookEndpointsTable> {
  await tables(db).updateTable('webhook_endpoints').set(changes).where('id', '=', id).execute()
  const row = await findEndpointRow(db, id)
  if (!row) throw new Error(`Webhook endpoint ${id} vanished during an update`)
  return row
}

/**
 * Disables an endpoint that answered 410 Gone, if it still has the URL that answered and is enabled; answers whether
 * it did.
 */
export async function disableGoneEndpoint(db: Db, id: string, url: string, reason: string): Promise<boolean> {
  const result = await tables(db)
    .updateTable('webhook_endpoints')
    .set({ enabled: 0, disabled_reason: reason, updated_at: new Date().toISOString() })
    .where('id', '=', id)
    .where('url', '=', url)
    .where('enabled', '=', 1)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** How many endpoints receive the brand `brandId`'s events (its staff's). */
export async function endpointsOfBrand(db: Db, brandId: string): Promise<number> {
  const row = await tables(db)
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('brand_id', '=', brandId)
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

/** Removes an endpoint and every delivery to it. */
export async function deleteEndpoint(db: Db, id: string): Promise<void> {
  await tables(db).deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute()
  await tables(db).deleteFrom('webhook_endpoints').where('id', '=', id).execute()
}

/**
 * For a batch of events, the enabled endpoints that receive each: platform staff's endpoints (no brand) receive
 * every event, a brand's endpoints only the events of that brand's customers; each endpoint's subscription is
 * `events` (kinds, or `*`). One query for the whole batch (the endpoints of the brands it concerns), in id order.
 */
export async function endpointsForEvents(
  db: Db,
  events: readonly OutboxEvent[],
): Promise<(event: OutboxEvent) => WebhookEndpointsTable[]> {
  const brands = [...new Set(events.flatMap((event) => (event.brandId === null ? [] : [event.brandId])))]
  const rows = await tables(db)
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('enabled', '=', 1)
    .where((eb) =>
      brands.length === 0
        ? eb('brand_id', 'is', null)
        : eb.or([eb('brand_id', 'is', null), eb('brand_id', 'in', brands)]),
    )
    .orderBy('id')
    .execute()
  const endpoints = rows.map((row) => ({ row, events: new Set(JSON.parse(row.events) as string[]) }))
  return (event) =>
    endpoints
      .filter(
        (endpoint) =>
          (endpoint.row.brand_id === null || endpoint.row.brand_id === event.brandId) &&
          (endpoint.events.has('*') || endpoint.events.has(event.kind)) &&
          // Events from the endpoint's creation on, whenever they are dispatched (docs/webhooks.md).
          endpoint.row.created_at <= event.occurredAt,
      )
      .map((endpoint) => endpoint.row)
}

/** Stores a new delivery. */
export async function insertDelivery(db: Db, row: WebhookDeliveriesTable): Promise<void> {
  await tables(db).insertInto('webhook_deliveries').values(row).execute()
}

/** Rows per insert of many deliveries: 15 columns each stays far below either engine's limit on parameters. */
const insertChunk = 100

/** Stores new deliveries, many rows per statement. */
export async function insertDeliveries(db: Db, rows: readonly WebhookDeliveriesTable[]): Promise<void> {
  for (let from = 0; from < rows.length; from += insertChunk)
    await tables(db)
      .insertInto('webhook_deliveries')
      .values(rows.slice(from, from + insertChunk))
      .execute()
}

/** A new pending delivery, due now. */
export function newDeliveryRow(
  fields: Pick<WebhookDeliveriesTable, 'id' | 'endpoint_id' | 'event_id' | 'event_type' | 'payload'> & {
    redelivery_of?: string | null
  },
  now: string,
): WebhookDeliveriesTable {
  return {
    ...fields,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    claim_owner: null,
    claimed_until: null,
    last_attempt_at: null,
    last_status_code: null,
    last_error: null,
    last_response_ms: null,
    redelivery_of: fields.redelivery_of ?? null,
    created_at: now,
    updated_at: now,
  }
}

/** Deliveries to one endpoint, as a query for lists: keyed by `webhook_deliveries.id`. */
export function deliveriesOf(db: Db, endpointId: string) {
  return tables(db).selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId)
}

/** One delivery to one endpoint, or 404 `not_found`. */
export async function findDelivery(db: Db, endpointId: string, id: string): Promise<WebhookDeliveriesTable> {
  return orNotFound(await deliveriesOf(db, endpointId).where('id', '=', id).executeTakeFirst())
}

/** A delivery claimed for an attempt, with its endpoint as the claim read it (locked, on PostgreSQL). */
export interface ClaimedDelivery {
  readonly delivery: WebhookDeliveriesTable
  readonly endpoint: WebhookEndpointsTable
}

/**
 * Claims up to `limit` due deliveries for `owner` until `leaseUntil`, with their endpoints: pending ones whose time has come and that
 * nobody holds, or whose holder's claim ran out (a worker that died mid-attempt). An endpoint never has more than
 * `perEndpoint` attempts in flight across every instance sharing the store, so one that hangs cannot hold every
 * worker while other endpoints wait: the endpoints' rows are locked (in id order, so two claims never wait for
 * each other in a circle), their live claims counted, and only the rest of their share taken. Run it in a
 * `read committed` transaction: the count, made after the lock, then sees every claim committed before it.
 */
export async function claimDue(
  db: Db,
  options: {
    owner: string
    now: string
    leaseUntil: string
    limit: number
    perEndpoint: number
  },
): Promise<ClaimedDelivery[]> {
  const { now } = options
  // Endpoints with a delivery to claim and room for it (as far as can be told before locking), longest waiting first.
  const waiting = await tables(db)
    .selectFrom((eb) =>
      eb
        .selectFrom('webhook_endpoints as endpoint')
        .select('endpoint.id')
        .select((inner) =>
          inner
            .selectFrom('webhook_deliveries as due')
            .select((agg) => agg.fn.min('due.next_attempt_at').as('at'))
            .whereRef('due.endpoint_id', '=', 'endpoint.id')
            .where('due.status', '=', 'pending')
            .where('due.next_attempt_at', '<=', now)
            .where((free) =>
              free.or([free('due.claimed_until', 'is', null), free('due.claimed_until', '<', now)]),
            )
            .as('due_at'),
        )
        .select((inner) =>
          inner
            .selectFrom('webhook_deliveries as flight')
            .select((agg) => agg.fn.countAll().as('count'))
            .whereRef('flight.endpoint_id', '=', 'endpoint.id')
            .where('flight.status', '=', 'pending')
            .where('flight.claimed_until', '>=', now)
            .as('in_flight'),
        )
        .as('waiting'),
    )
    .select('waiting.id')
    .where('waiting.due_at', 'is not', null)
    .where('waiting.in_flight', '<', options.perEndpoint)
    .orderBy('waiting.due_at')
    .orderBy('waiting.id')
    .limit(options.limit)
    .execute()
  if (waiting.length === 0) return []
  const ids = waiting.map((row) => row.id)
  // Claims of the same endpoints on other instances wait here until this one commits, and then count its claims.
  // The rows are what the attempts use (URL, secrets, enabled), read here rather than once per attempt.
  const locked = await lockRows(
    db,
    tables(db).selectFrom('webhook_endpoints').selectAll().where('id', 'in', ids).orderBy('id'),
  ).execute()
  const endpoints = new Map(locked.map((row) => [row.id, row]))
  const flying = await tables(db)
    .selectFrom('webhook_deliveries')
    .select('endpoint_id')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('endpoint_id', 'in', ids)
    .where('status', '=', 'pending')
    .where('claimed_until', '>=', now)
    .groupBy('endpoint_id')
    .execute()
  const inFlight = new Map(flying.map((row) => [row.endpoint_id, Number(row.count)]))
  const claimed: ClaimedDelivery[] = []
  for (const endpointId of ids) {
    const endpoint = endpoints.get(endpointId)
    // Deleted meanwhile, with its deliveries.
    if (!endpoint) continue
    const room = Math.min(
      options.perEndpoint - (inFlight.get(endpointId) ?? 0),
      options.limit - claimed.length,
    )
    if (room <= 0) continue
    const rows = await claimRows(
      db,
      deliveriesDue(db, now)
        .where('endpoint_id', '=', endpointId)
        .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
        .orderBy('next_attempt_at')
        .orderBy('id')
        .limit(room),
    ).execute()
    if (rows.length === 0) continue
    await tables(db)
      .updateTable('webhook_deliveries')
      .set({ claim_owner: options.owner, claimed_until: options.leaseUntil })
      .where(
        'id',
        'in',
        rows.map((row) => row.id),
      )
      .execute()
    for (const row of rows)
      claimed.push({
        delivery: { ...row, claim_owner: options.owner, claimed_until: options.leaseUntil },
        endpoint,
      })
  }
  return claimed
}

function deliveriesDue(db: Db, now: string) {
  return tables(db)
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
}

/**
 * Records the end of an attempt held by `owner` (and drops the claim); answers false, changing nothing, when the
 * claim was lost meanwhile (it ran out and another worker took the delivery over).
 */
export async function finishAttempt(
  db: Db,
  id: string,
  owner: string,
  changes: Partial<
    Pick<
      WebhookDeliveriesTable,
      | 'status'
      | 'attempts'
      | 'next_attempt_at'
      | 'last_attempt_at'
      | 'last_status_code'
      | 'last_error'
      | 'last_response_ms'
    >
  >,
): Promise<boolean> {
  const result = await tables(db)
    .updateTable('webhook_deliveries')
    .set({ ...changes, claim_owner: null, claimed_until: null, updated_at: new Date().toISOString() })
    .where('id', '=', id)
    .where('claim_owner', '=', owner)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Fails every pending delivery of an endpoint (it was disabled), releasing any claim on them. */
export async function failPendingDeliveries(db: Db, endpointId: string, reason: string): Promise<void> {
  const now = new Date().toISOString()
  await tables(db)
    .updateTable('webhook_deliveries')
    .set({
      status: 'failed',
      next_attempt_at: null,
      claim_owner: null,
      claimed_until: null,
      last_error: reason,
      updated_at: now,
    })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .execute()
}

/** Gives a claimed delivery back untried (the panel is stopping): it stays pending and due. */
export async function releaseClaim(db: Db, id: string, owner: string): Promise<void> {
  await tables(db)
    .updateTable('webhook_deliveries')
    .set({ claim_owner: null, claimed_until: null })
    .where('id', '=', id)
    .where('claim_owner', '=', owner)
    .execute()
}

/** For the metrics: how many deliveries are pending, and when the longest-waiting due one became due. */
export async function pendingDeliveryStats(
  db: Db,
  now: string,
): Promise<{ pending: number; oldestDue: string | null }> {
  const pending = await tables(db)
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('next_attempt_at', 'is not', null)
    .where('status', '=', 'pending')
    .executeTakeFirst()
  const due = await deliveriesDue(db, now)
    .clearSelect()
    .select((eb) => eb.fn.min('next_attempt_at').as('oldest'))
    .executeTakeFirst()
  return {
    pending: Number(pending?.count ?? 0),
    oldestDue: (due?.oldest as string | null | undefined) ?? null,
  }
}
