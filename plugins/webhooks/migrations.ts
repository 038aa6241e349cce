// The webhooks plugin's tables: endpoints and their deliveries (a durable queue with a lease per attempt).

import { type Migration, sql } from '../../core/index.ts'

/** Row of `webhook_endpoints`. */
export interface WebhookEndpointsTable {
  id: string
  /** The brand whose events it receives; null for platform staff's endpoints (every event). */
  brand_id: string | null
  url: string
  description: string | null
  /** JSON array of event kinds, or `["*"]`. */
  events: string
  /** 1 or 0. */
  enabled: number
  disabled_reason: string | null
  /** The signing secret, sealed with the panel's secret box. */
  secret_sealed: string
  /**
   * JSON array of `{ sealed, expiresAt }`: secrets replaced by rotations within the last 24 hours, which sign beside
   * the current one until they expire (see secrets.ts).
   */
  retired_secrets: string
  created_at: string
  updated_at: string
}

/** Row of `webhook_deliveries`. */
export interface WebhookDeliveriesTable {
  id: string
  endpoint_id: string
  event_id: string
  event_type: string
  /** The exact JSON body sent, `{ id, type, timestamp, data }`, so every attempt sends the same bytes. */
  payload: string
  status: string
  attempts: number
  /** When it is due; null once it is no longer pending. */
  next_attempt_at: string | null
  /** Who holds the current attempt, and until when; a claim past its time is taken over. */
  claim_owner: string | null
  claimed_until: string | null
  last_attempt_at: string | null
  last_status_code: number | null
  last_error: string | null
  last_response_ms: number | null
  redelivery_of: string | null
  created_at: string
  updated_at: string
}

/** The plugin's tables, for `db.withTables<WebhooksTables>()`. */
export type WebhooksTables = {
  webhook_endpoints: WebhookEndpointsTable
  webhook_deliveries: WebhookDeliveriesTable
}

/** The plugin's schema changes, in order. */
export const webhooksMigrations: readonly Migration[] = [
  {
    id: '0001_create_webhooks',
    async up(db) {
      await db.schema
        .createTable('webhook_endpoints')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('brand_id', 'text')
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('events', 'text', (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('disabled_reason', 'text')
        .addColumn('secret_sealed', 'text', (c) => c.notNull())
        .addColumn('retired_secrets', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema
        .createIndex('webhook_endpoints_brand_idx')
        .on('webhook_endpoints')
        .columns(['brand_id', 'id'])
        .execute()
      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('endpoint_id', 'text', (c) => c.notNull())
        .addColumn('event_id', 'text', (c) => c.notNull())
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('next_attempt_at', 'text')
        .addColumn('claim_owner', 'text')
        .addColumn('claimed_until', 'text')
        .addColumn('last_attempt_at', 'text')
        .addColumn('last_status_code', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('last_response_ms', 'integer')
        .addColumn('redelivery_of', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      // The loop's question: which pending deliveries are due (next_attempt_at is null for the others).
      await db.schema
        .createIndex('webhook_deliveries_due_idx')
        .on('webhook_deliveries')
        .columns(['next_attempt_at'])
        .execute()
      await db.schema
        .createIndex('webhook_deliveries_endpoint_idx')
        .on('webhook_deliveries')
        .columns(['endpoint_id', 'id'])
        .execute()
    },
  },
  {
    // Claims count an endpoint's attempts in flight and take its due deliveries on every instance, often: both
    // read only the few rows that are pending or claimed, not the endpoint's whole history.
    id: '0002_claim_indexes',
    async up(db) {
      await db.schema
        .createIndex('webhook_deliveries_pending_idx')
        .on('webhook_deliveries')
        .columns(['endpoint_id', 'next_attempt_at'])
        .where(sql.ref('status'), '=', 'pending')
        .execute()
      await db.schema
        .createIndex('webhook_deliveries_claimed_idx')
        .on('webhook_deliveries')
        .columns(['endpoint_id', 'claimed_until'])
        .where('claimed_until', 'is not', null)
        .execute()
    },
  },
]
