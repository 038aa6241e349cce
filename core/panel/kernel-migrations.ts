// The kernel's migrations, applied before any plugin's: recorded under the owner `kernel`, ids never change.

import { isPostgres } from '../store/engine.ts'
import { type Migration, sql } from '../store/migrations.ts'
import { changeVersionShards, versionedTables } from '../store/table-watch.ts'

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
      // Installations made before 0.2 also got a table of site traffic here; the nodes plugin, which keeps traffic
      // now, takes its rows over.
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
  {
    id: '0006_audit_brand',
    async up(db) {
      // Brand staff see the entries of their brand: those of its customers, and of its own plans, endpoints and
      // staff, which have no customer. Entries written before take their customer's brand.
      await db.schema.alterTable('audit_entries').addColumn('brand_id', 'text').execute()
      await sql`update audit_entries set brand_id =
        (select brand_id from tenants where tenants.customer_id = audit_entries.customer_id)
        where customer_id is not null`.execute(db)
      await db.schema.createIndex('audit_brand_idx').on('audit_entries').columns(['brand_id', 'id']).execute()
    },
  },
  {
    id: '0007_disabled_users_session_origin',
    async up(db) {
      // Staff disable a user (their sessions end, their tokens are refused until enabled again); a session keeps
      // the address and user agent it was created from, so its user can tell their sessions apart.
      await db.schema.alterTable('users').addColumn('disabled_at', 'text').execute()
      await db.schema.alterTable('sessions').addColumn('created_address', 'text').execute()
      await db.schema.alterTable('sessions').addColumn('user_agent', 'text').execute()
    },
  },
  {
    id: '0008_installation_caller_versions',
    async up(db) {
      // What the installation knows of itself: a check of the secret it was made with, so an instance started with
      // another secret refuses to start instead of sealing what no other instance can open.
      await db.schema
        .createTable('installation')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute()
      if (!isPostgres(db)) return
      // PostgreSQL has no `data_version`: versions per watched table, bumped by a statement trigger in the writing
      // transaction, so they become visible exactly when the write does (core/store/table-watch.ts). Each table
      // has `changeVersionShards` rows and a write bumps one at random: concurrent writers (customers created at
      // once) then seldom update the same row, which serializable transactions would have to retry.
      await db.schema
        .createTable('change_versions')
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('shard', 'integer', (c) => c.notNull())
        .addColumn('version', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('change_versions_pk', ['name', 'shard'])
        .execute()
      // The shard is drawn once: `random()` in the WHERE clause would be drawn per row, bumping none or several.
      await sql`create function plinth_bump_change_version() returns trigger language plpgsql as $$
        declare
          picked integer := floor(random() * ${sql.lit(changeVersionShards)})::integer;
        begin
          update change_versions set version = version + 1 where name = tg_table_name and shard = picked;
          return null;
        end $$`.execute(db)
      for (const table of versionedTables) {
        for (let shard = 0; shard < changeVersionShards; shard++)
          await sql`insert into change_versions (name, shard, version) values (${table}, ${shard}, 0)`.execute(
            db,
          )
        await sql`create trigger ${sql.raw(`${table}_change_version`)} after insert or update or delete or truncate
          on ${sql.table(table)} for each statement execute function plinth_bump_change_version()`.execute(db)
      }
    },
  },
  {
    id: '0009_rate_windows',
    async up(db) {
      // Rate windows and failed-login counts shared by the instances on one PostgreSQL store (SQLite's single
      // process keeps them in memory). Unlogged: a count lost in a crash costs at most one window's allowance,
      // and its commits then wait for no WAL flush. Half-full pages let each count's update stay on its page.
      if (!isPostgres(db)) return
      await sql`create unlogged table rate_windows (
        key text primary key,
        resets_at bigint not null,
        used integer not null
      ) with (fillfactor = 50)`.execute(db)
    },
  },
  {
    id: '0010_usage_counter_shards',
    async up(db) {
      // The installation's and each brand's counters are written by every change of their customers: on PostgreSQL
      // each is spread over shards (a change adds to one at random), so concurrent changes seldom update one row
      // and serializable transactions seldom have to run again. Reads sum the shards, as they summed scopes.
      await db.schema
        .createTable('usage_counters_sharded')
        .addColumn('scope_key', 'text', (c) => c.notNull())
        .addColumn('metric', 'text', (c) => c.notNull())
        .addColumn('shard', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('value', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('usage_counters_sharded_pk', ['scope_key', 'metric', 'shard'])
        .execute()
      await sql`insert into usage_counters_sharded (scope_key, metric, shard, value)
        select scope_key, metric, 0, value from usage_counters`.execute(db)
      await db.schema.dropTable('usage_counters').execute()
      await db.schema.alterTable('usage_counters_sharded').renameTo('usage_counters').execute()
    },
  },
  {
    id: '0011_jobs_due_index',
    async up(db) {
      // A claim reads the first due job in (run_after, id) order: with `id` in the index it stops at that row,
      // where ordering by `id` afterwards sorted every due job, and the backlog grew with each claim's cost.
      await db.schema.createIndex('jobs_due_idx').on('jobs').columns(['status', 'run_after', 'id']).execute()
      await db.schema.dropIndex('jobs_runnable_idx').execute()
    },
  },
  {
    id: '0012_job_output',
    async up(db) {
      // Lines a job reports as it runs (`run.output`), which its event stream carries: bounded per job.
      await db.schema
        .createTable('job_output')
        .addColumn('job_id', 'text', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('stream', 'text', (c) => c.notNull())
        .addColumn('line', 'text', (c) => c.notNull())
        .addColumn('at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('job_output_pk', ['job_id', 'seq'])
        .execute()
    },
  },
  {
    id: '0013_tenant_closing',
    async up(db) {
      // A customer whose deletion started takes nothing new: the kernel refuses a declared change for it.
      await db.schema.alterTable('tenants').addColumn('closing_at', 'text').execute()
    },
  },
  {
    id: '0014_job_turns',
    async up(db) {
      // Fair shares between customers (job-claim.ts): each job's lane, whether it goes ahead of customer work, and
      // its turn in the lane (-1 until it is due and placed). Jobs queued before start again unplaced, in the
      // shared lane until the runner's start moves them to their kind's lane.
      await db.schema
        .alterTable('jobs')
        .addColumn('lane', 'text', (c) => c.notNull().defaultTo(''))
        .execute()
      await db.schema
        .alterTable('jobs')
        .addColumn('urgent', 'integer', (c) => c.notNull().defaultTo(0))
        .execute()
      await db.schema
        .alterTable('jobs')
        .addColumn('turn', 'integer', (c) => c.notNull().defaultTo(-1))
        .execute()
      // A claim takes the lowest turn among a lane's due jobs (urgent first), and places newly due jobs, which
      // sit at turn -1, along the same index; the lane's current turn is the highest turn its started jobs hold.
      await db.schema
        .createIndex('jobs_turn_idx')
        .on('jobs')
        .columns(['lane', 'status', 'urgent', 'turn', 'run_after', 'id'])
        .execute()
      // Placing a customer's job reads the highest turn its jobs in the lane took.
      await db.schema
        .createIndex('jobs_share_idx')
        .on('jobs')
        .columns(['lane', 'customer_id', 'turn'])
        .execute()
    },
  },
]
