// The kernel's own tables: users, sessions, API tokens, tenancy (tenants, memberships), audit log, event outbox.

import type { Migration } from '../store/migrations.ts'

export interface UsersTable {
  id: string
  email: string
  password_hash: string
  /** `platform` for the provider's own staff, `brand` for a brand's staff (with `brand_id`), null otherwise. */
  staff_role: string | null
  brand_id: string | null
  created_at: string
  updated_at: string
}

export interface ApiTokensTable {
  id: string
  user_id: string
  name: string
  token_hash: string
  /** JSON array of scope names, possibly `["*"]`. */
  scopes: string
  customer_id: string | null
  expires_at: string
  created_at: string
  last_used_at: string | null
  revoked_at: string | null
}

export interface AuditEntriesTable {
  id: string
  occurred_at: string
  action: string
  actor_user_id: string | null
  actor_token_id: string | null
  subject_type: string
  subject_id: string
  customer_id: string | null
  request_id: string | null
  source_address: string | null
  /** JSON object with what changed; never secrets. */
  details: string
}

export interface EventOutboxTable {
  id: string
  kind: string
  occurred_at: string
  customer_id: string | null
  /** JSON of the event's `data`. */
  payload: string
  dispatched_at: string | null
  /** The customer's brand when the event was written, so brand endpoints get only their brand's events. */
  brand_id: string | null
}

export interface SessionsTable {
  id: string
  /** SHA-256 of the session secret, hex. */
  secret_hash: string
  user_id: string
  created_at: string
  expires_at: string
}

/** Which brand each customer belongs to: written by the customers plugin through the tenancy service. */
export interface TenantsTable {
  customer_id: string
  brand_id: string
}

/** A user's role on a customer's team. */
export interface MembershipsTable {
  user_id: string
  customer_id: string
  role: string
  created_at: string
}

/** A remembered answer to a creating request, by caller and Idempotency-Key. */
export interface IdempotencyKeysTable {
  caller: string
  key: string
  fingerprint: string
  /** `in_flight` while the first request runs, `done` once its answer is kept. */
  state: string
  response_status: number | null
  response_headers: string | null
  response_body: string | null
  created_at: string
  expires_at: string
}

/** Counts kept up to date as rows change, per scope: `all`, `brand:<id>`, `customer:<id>`. */
export interface UsageCountersTable {
  scope_key: string
  metric: string
  value: number
}

/** Traffic reported for sites, summed per scope and hour (`2026-11-22T05`). */
export interface TrafficBucketsTable {
  scope_key: string
  hour: string
  requests: number
  bytes: number
}

export interface JobsTable {
  id: string
  kind: string
  /** queued, running, succeeded, failed, cancelled. */
  status: string
  customer_id: string | null
  subject_type: string
  subject_id: string
  /** JSON object. */
  input: string
  /** JSON object the handler returned, once succeeded. */
  result: string | null
  /** JSON `{ code, message }` of the last failure. */
  error: string | null
  progress: number
  step: string | null
  attempts: number
  max_attempts: number
  /** Not before this time (retries back off). */
  run_after: string
  /** The worker holding the job while it runs, and until when; an expired lease is taken over. */
  lease_owner: string | null
  lease_until: string | null
  cancel_requested: number
  requested_by_user_id: string | null
  requested_by_token_id: string | null
  request_id: string | null
  created_at: string
  updated_at: string
  started_at: string | null
  finished_at: string | null
}

/** The kernel's tables, for `db.withTables<KernelTables>()` (a type alias: Kysely needs an index-compatible type). */
export type KernelTables = {
  users: UsersTable
  api_tokens: ApiTokensTable
  audit_entries: AuditEntriesTable
  event_outbox: EventOutboxTable
  sessions: SessionsTable
  tenants: TenantsTable
  memberships: MembershipsTable
  idempotency_keys: IdempotencyKeysTable
  usage_counters: UsageCountersTable
  traffic_buckets: TrafficBucketsTable
  jobs: JobsTable
}

/** The kernel's migrations, applied before any plugin's. */
export const kernelMigrations: readonly Migration[] = [
  {
    id: '0001_identity_audit_outbox',
    async up(db) {
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('staff_role', 'text')
        .addColumn('brand_id', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema
        .createTable('api_tokens')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('customer_id', 'text')
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_used_at', 'text')
        .addColumn('revoked_at', 'text')
        .execute()
      await db.schema.createIndex('api_tokens_user_idx').on('api_tokens').columns(['user_id', 'id']).execute()
      await db.schema
        .createTable('audit_entries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('occurred_at', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('actor_user_id', 'text')
        .addColumn('actor_token_id', 'text')
        .addColumn('subject_type', 'text', (c) => c.notNull())
        .addColumn('subject_id', 'text', (c) => c.notNull())
        .addColumn('customer_id', 'text')
        .addColumn('request_id', 'text')
        .addColumn('source_address', 'text')
        .addColumn('details', 'text', (c) => c.notNull())
        .execute()
      await db.schema
        .createIndex('audit_subject_idx')
        .on('audit_entries')
        .columns(['subject_id', 'id'])
        .execute()
      await db.schema
        .createIndex('audit_customer_idx')
        .on('audit_entries')
        .columns(['customer_id', 'id'])
        .execute()
      await db.schema
        .createTable('event_outbox')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('occurred_at', 'text', (c) => c.notNull())
        .addColumn('customer_id', 'text')
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('dispatched_at', 'text')
        .execute()
      await db.schema
        .createIndex('event_outbox_pending_idx')
        .on('event_outbox')
        .columns(['dispatched_at', 'id'])
        .execute()
    },
  },
  {
    id: '0002_sessions_tenancy',
    async up(db) {
      await db.schema
        .createTable('sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('secret_hash', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute()
      await db.schema
        .createTable('tenants')
        .addColumn('customer_id', 'text', (c) => c.primaryKey())
        .addColumn('brand_id', 'text', (c) => c.notNull())
        .execute()
      await db.schema
        .createIndex('tenants_brand_idx')
        .on('tenants')
        .columns(['brand_id', 'customer_id'])
        .execute()
      await db.schema
        .createTable('memberships')
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('customer_id', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('memberships_pk', ['customer_id', 'user_id'])
        .execute()
      await db.schema
        .createIndex('memberships_user_idx')
        .on('memberships')
        .columns(['user_id', 'customer_id'])
        .execute()
    },
  },
  {
    id: '0003_idempotency_keys',
    async up(db) {
      await db.schema
        .createTable('idempotency_keys')
        .addColumn('caller', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('response_status', 'integer')
        .addColumn('response_headers', 'text')
        .addColumn('response_body', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['caller', 'key'])
        .execute()
      await db.schema
        .createIndex('idempotency_keys_expiry_idx')
        .on('idempotency_keys')
        .column('expires_at')
        .execute()
    },
  },
  {
    id: '0004_usage',
    async up(db) {
      await db.schema
        .createTable('usage_counters')
        .addColumn('scope_key', 'text', (c) => c.notNull())
        .addColumn('metric', 'text', (c) => c.notNull())
        .addColumn('value', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('usage_counters_pk', ['scope_key', 'metric'])
        .execute()
      await db.schema
        .createTable('traffic_buckets')
        .addColumn('scope_key', 'text', (c) => c.notNull())
        .addColumn('hour', 'text', (c) => c.notNull())
        .addColumn('requests', 'integer', (c) => c.notNull())
        .addColumn('bytes', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('traffic_buckets_pk', ['scope_key', 'hour'])
        .execute()
    },
  },
  {
    id: '0005_jobs',
    async up(db) {
      await db.schema
        .createTable('jobs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('customer_id', 'text')
        .addColumn('subject_type', 'text', (c) => c.notNull())
        .addColumn('subject_id', 'text', (c) => c.notNull())
        .addColumn('input', 'text', (c) => c.notNull())
        .addColumn('result', 'text')
        .addColumn('error', 'text')
        .addColumn('progress', 'integer', (c) => c.notNull())
        .addColumn('step', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('max_attempts', 'integer', (c) => c.notNull())
        .addColumn('run_after', 'text', (c) => c.notNull())
        .addColumn('lease_owner', 'text')
        .addColumn('lease_until', 'text')
        .addColumn('cancel_requested', 'integer', (c) => c.notNull())
        .addColumn('requested_by_user_id', 'text')
        .addColumn('requested_by_token_id', 'text')
        .addColumn('request_id', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('started_at', 'text')
        .addColumn('finished_at', 'text')
        .execute()
      await db.schema.createIndex('jobs_runnable_idx').on('jobs').columns(['status', 'run_after']).execute()
      await db.schema.createIndex('jobs_customer_idx').on('jobs').columns(['customer_id', 'id']).execute()
      await db.schema.createIndex('jobs_subject_idx').on('jobs').columns(['subject_id', 'id']).execute()
      await db.schema.alterTable('event_outbox').addColumn('brand_id', 'text').execute()
    },
  },
]
