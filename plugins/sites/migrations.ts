// The sites plugin's tables. Owners are referenced by id only: the customers plugin may be swapped.

import { type Migration, sql } from '../../core/index.ts'

/** Row of `sites`. */
export interface SitesTable {
  id: string
  customer_id: string
  handle: string
  name: string
  type: string
  domain: string
  status: string
  /** The node the site lives on. */
  node_id: string | null
  /** The latest job working on the site. */
  job_id: string | null
  /** Disk quota in MB; null is unlimited. */
  disk_mb: number | null
  /**
   * 1 while staff keep the site suspended (abuse, by hand), else 0. A suspended site is released only when no reason
   * is left: neither this one nor a hold on its customer (`customers.suspensions`).
   */
  suspended_by_staff: number
  /** Why the site's provisioning last failed (its `error`): a stable code, null while nothing failed. */
  error_code: string | null
  /** What went wrong, in words, with `error_code`. */
  error_message: string | null
  /** The job whose attempt failed, with `error_code`. */
  error_job_id: string | null
  /** What reconciliation found wrong with the site on its node and could not simply put right (its `drift`). */
  drift_code: string | null
  drift_message: string | null
  drift_job_id: string | null
  drift_detected_at: string | null
  /**
   * Staff's limits for the site alone, over its plan's and its node's defaults: CPU in percent of one core, memory in
   * MB, processes; null: none of its own.
   */
  cpu_percent: number | null
  memory_mb: number | null
  processes: number | null
  /**
   * JSON of the effective limits its node was last given (`{ cpuPercent, memoryMB, processes }`), written once the
   * node took them: the limits check starts an update where they differ from today's (a plan or a node changed).
   */
  applied_limits: string | null
  created_at: string
  updated_at: string
}

/** Row of `node_site_counts`: how many sites a node holds, kept in the transactions that add and remove sites. */
export interface NodeSiteCountsTable {
  node_id: string
  sites: number
}

/**
 * Row of `site_limit_watch`: what the limits check last read of one kind of a site's limits on its node, so it can
 * tell a site that keeps hitting one (its hits grew at consecutive readings) and say so at most once in a while.
 */
export interface SiteLimitWatchTable {
  site_id: string
  /** `cpu`, `memory`, `processes` or `disk`. */
  kind: string
  /** The hits in the last 24 h at the last reading. */
  hits24h: number
  /** How many readings in a row found more hits than the one before. */
  rising: number
  /** When `site.limitReached` was last sent for it, or null. */
  notified_at: string | null
  read_at: string
}

/** Row of `site_limit_checks`: when the limits check is next due (one row, claimed by one instance at a time). */
export interface SiteLimitChecksTable {
  id: string
  next_at: string
}

/** The plugin's tables, for `db.withTables<SitesTables>()`. */
export type SitesTables = {
  sites: SitesTable
  node_site_counts: NodeSiteCountsTable
  site_limit_watch: SiteLimitWatchTable
  site_limit_checks: SiteLimitChecksTable
}

export const sitesMigrations: readonly Migration[] = [
  {
    id: '0001_create_sites',
    async up(db) {
      await db.schema
        .createTable('sites')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('customer_id', 'text', (c) => c.notNull())
        .addColumn('handle', 'text', (c) => c.notNull().unique())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('domain', 'text', (c) => c.notNull().unique())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('sites_customer_idx').on('sites').columns(['customer_id', 'id']).execute()
    },
  },
  {
    id: '0002_site_lifecycle',
    async up(db) {
      await db.schema.alterTable('sites').addColumn('node_id', 'text').execute()
      await db.schema.alterTable('sites').addColumn('job_id', 'text').execute()
      await db.schema.alterTable('sites').addColumn('disk_mb', 'integer').execute()
      await db.schema.createIndex('sites_node_idx').on('sites').columns(['node_id', 'id']).execute()
    },
  },
  {
    id: '0003_staff_suspension',
    async up(db) {
      // Sites suspended before this column existed stay as they are; holds never covered them, so no hold lifts them.
      await db.schema
        .alterTable('sites')
        .addColumn('suspended_by_staff', 'integer', (c) => c.notNull().defaultTo(0))
        .execute()
    },
  },
  {
    id: '0004_count_site_disk',
    async up(db, { usage }) {
      // Disk quotas set before the `diskMB` usage counter existed were never counted, so deleting or lowering them
      // drove the counter below zero. Count what the sites hold now, per customer, through the kernel's counters
      // (which also keep the brand's and the installation's totals); a counter already right moves by 0.
      const held = await db
        .withTables<SitesTables>()
        .selectFrom('sites')
        .select(['customer_id', sql<number>`sum(disk_mb)`.as('disk')])
        .where('disk_mb', 'is not', null)
        .groupBy('customer_id')
        .execute()
      for (const row of held) {
        const counted =
          (await usage.of(db, { kind: 'customers', customerIds: [row.customer_id] })).diskMB ?? 0
        const delta = Number(row.disk) - counted
        if (delta !== 0) await usage.adjust(db, row.customer_id, 'diskMB', delta)
      }
    },
  },
  {
    id: '0005_node_site_counts',
    async up(db) {
      // Placement picks the emptiest node for every new site; counting its sites each time cost about 100 ms at 1M
      // sites, so the counts are kept instead, starting from what the sites hold now.
      await db.schema
        .createTable('node_site_counts')
        .addColumn('node_id', 'text', (c) => c.primaryKey())
        .addColumn('sites', 'integer', (c) => c.notNull())
        .execute()
      await sql`insert into node_site_counts (node_id, sites)
        select node_id, count(*) from sites where node_id is not null group by node_id`.execute(db)
    },
  },
  {
    id: '0006_site_errors',
    async up(db) {
      // Why a site failed is kept on the site itself, so it can be shown (and retried) without reading its jobs.
      for (const column of ['error_code', 'error_message', 'error_job_id'])
        await db.schema.alterTable('sites').addColumn(column, 'text').execute()
    },
  },
  {
    id: '0007_site_drift',
    async up(db) {
      // What reconciliation found of the site on its node (missing, restored from nothing, not restorable).
      for (const column of ['drift_code', 'drift_message', 'drift_job_id', 'drift_detected_at'])
        await db.schema.alterTable('sites').addColumn(column, 'text').execute()
    },
  },
  {
    id: '0008_site_resource_limits',
    async up(db) {
      // Staff's limits for one site, what its node was last given, and what the limits check read: sites made before
      // have none of their own and take their plan's or their node's defaults, applied by the first check.
      for (const column of ['cpu_percent', 'memory_mb', 'processes'])
        await db.schema.alterTable('sites').addColumn(column, 'integer').execute()
      await db.schema.alterTable('sites').addColumn('applied_limits', 'text').execute()
      await db.schema
        .createTable('site_limit_watch')
        .addColumn('site_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('hits24h', 'integer', (c) => c.notNull())
        .addColumn('rising', 'integer', (c) => c.notNull())
        .addColumn('notified_at', 'text')
        .addColumn('read_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('site_limit_watch_pk', ['site_id', 'kind'])
        .execute()
      await db.schema
        .createTable('site_limit_checks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('next_at', 'text', (c) => c.notNull())
        .execute()
    },
  },
  {
    id: '0009_first_limits_check_due',
    async up(db) {
      // Sites made before per-site limits run unlimited until the limits check gives their nodes the limits, and the
      // schedule's first claim puts the first check a whole interval after the start: an upgraded node's sites ran
      // five minutes without limits (and a node restarted meanwhile brought them back without any). Where active
      // sites wait for their limits, the first check is due at once; a fresh installation keeps its schedule.
      const waiting = await sql<{ id: string }>`select id from sites
        where status = 'active' and applied_limits is null limit 1`.execute(db)
      if (waiting.rows.length === 0) return
      await sql`insert into site_limit_checks (id, next_at) values ('limits', '1970-01-01T00:00:00.000Z')
        on conflict (id) do update set next_at = excluded.next_at`.execute(db)
    },
  },
]
