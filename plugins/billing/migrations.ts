// The billing plugin's tables. Customers and brands are referenced by id only: either plugin may be swapped.

import type { Migration } from '../../core/index.ts'

/** Row of `plans`. */
export interface PlansTable {
  id: string
  brand_id: string
  name: string
  description: string | null
  /** JSON of the plan's limits (`QuotaLimits`). */
  limits: string
  /** JSON of the plan's settings (`PlanSettings`: `{ "php": { "allowFunctions": [...] } }`), `{}` for none. */
  settings: string
  status: string
  created_at: string
  updated_at: string
}

/** Row of `subscriptions`. */
export interface SubscriptionsTable {
  id: string
  customer_id: string
  plan_id: string
  status: string
  external_id: string | null
  suspended_reason: string | null
  suspended_at: string | null
  cancelled_at: string | null
  removal_at: string | null
  /** When the removal after cancellation ran (or was made moot by it); null while it is pending. */
  removed_at: string | null
  created_at: string
  updated_at: string
}

/** The plugin's tables, for `db.withTables<BillingTables>()`. */
export type BillingTables = { plans: PlansTable; subscriptions: SubscriptionsTable }

/** The billing plugin's schema changes, applied once each, in order, at start. */
export const billingMigrations: readonly Migration[] = [
  {
    id: '0001_create_plans_and_subscriptions',
    async up(db) {
      await db.schema
        .createTable('plans')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('brand_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('limits', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('plans_brand_idx').on('plans').columns(['brand_id', 'id']).execute()
      await db.schema
        .createTable('subscriptions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('customer_id', 'text', (c) => c.notNull())
        .addColumn('plan_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('external_id', 'text')
        .addColumn('suspended_reason', 'text')
        .addColumn('suspended_at', 'text')
        .addColumn('cancelled_at', 'text')
        .addColumn('removal_at', 'text')
        .addColumn('removed_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema
        .createIndex('subscriptions_customer_idx')
        .on('subscriptions')
        .columns(['customer_id', 'id'])
        .execute()
      await db.schema
        .createIndex('subscriptions_plan_idx')
        .on('subscriptions')
        .columns(['plan_id', 'id'])
        .execute()
    },
  },
  {
    // Settings plugins let plans carry beside their limits (the PHP functions a plan's sites may call); none so far.
    id: '0002_plan_settings',
    async up(db) {
      await db.schema
        .alterTable('plans')
        .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
        .execute()
    },
  },
]
