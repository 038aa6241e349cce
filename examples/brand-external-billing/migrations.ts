// The brand billing plugin's own tables: plans and subscriptions mirrored from the billing system, and the ids of
// the callbacks already applied (so a replayed callback changes nothing).

import type { Migration } from '../../core/index.ts'

/** Row of `brand_billing_plans`. */
export interface BrandPlansTable {
  id: string
  external_id: string
  brand_id: string
  name: string
  /** JSON of the plan's limits. */
  limits: string
  /** When the newest callback applied to it happened, by the billing system's clock (`occurredAt`). */
  occurred_at: string | null
  created_at: string
  updated_at: string
}

/** Row of `brand_billing_subscriptions`. */
export interface BrandSubscriptionsTable {
  id: string
  external_id: string
  customer_id: string
  plan_id: string
  status: string
  suspended_reason: string | null
  suspended_at: string | null
  cancelled_at: string | null
  /** When the newest callback applied to it happened; an older one arriving late changes nothing. */
  occurred_at: string | null
  created_at: string
  updated_at: string
}

/** Row of `brand_billing_callbacks`. */
export interface BrandCallbacksTable {
  id: string
  received_at: string
}

/** The plugin's tables, for `db.withTables<BrandBillingTables>()`. */
export type BrandBillingTables = {
  brand_billing_plans: BrandPlansTable
  brand_billing_subscriptions: BrandSubscriptionsTable
  brand_billing_callbacks: BrandCallbacksTable
}

/** The brand billing plugin's schema changes, applied once each, in order, at start. */
export const brandBillingMigrations: readonly Migration[] = [
  {
    id: '0001_brand_billing',
    async up(db) {
      await db.schema
        .createTable('brand_billing_plans')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('external_id', 'text', (c) => c.notNull().unique())
        .addColumn('brand_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('limits', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema
        .createTable('brand_billing_subscriptions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('external_id', 'text', (c) => c.notNull().unique())
        .addColumn('customer_id', 'text', (c) => c.notNull())
        .addColumn('plan_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('suspended_reason', 'text')
        .addColumn('suspended_at', 'text')
        .addColumn('cancelled_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema
        .createIndex('brand_billing_subscriptions_customer_idx')
        .on('brand_billing_subscriptions')
        .columns(['customer_id', 'id'])
        .execute()
      await db.schema
        .createTable('brand_billing_callbacks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('received_at', 'text', (c) => c.notNull())
        .execute()
    },
  },
  {
    id: '0002_callback_order',
    async up(db) {
      // Rows applied before callbacks carried `occurredAt` have none: the next callback about them is applied.
      await db.schema.alterTable('brand_billing_plans').addColumn('occurred_at', 'text').execute()
      await db.schema.alterTable('brand_billing_subscriptions').addColumn('occurred_at', 'text').execute()
    },
  },
]
