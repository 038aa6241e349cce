// The customers plugin's tables.

import { type Migration, sql } from '../../core/index.ts'

/** Row of `customers`. */
export interface CustomersTable {
  id: string
  name: string
  email: string | null
  brand_id: string
  /** `active` or `deleting`. */
  status: string
  /** The deletion job while `deleting`; null otherwise. */
  job_id: string | null
  created_at: string
  updated_at: string
}

/** Row of `customer_holds`: a customer whose resources a holder (billing) suspended. */
export interface CustomerHoldsTable {
  customer_id: string
  holder: string
  reason: string
  held_at: string
}

/** Row of `customer_held_resources`: one resource a hold suspended, to restore when it ends. */
export interface CustomerHeldResourcesTable {
  customer_id: string
  holder: string
  kind: string
  resource_id: string
}

/** The plugin's tables, for `db.withTables<CustomersTables>()`. */
export type CustomersTables = {
  customers: CustomersTable
  customer_holds: CustomerHoldsTable
  customer_held_resources: CustomerHeldResourcesTable
}

export const customersMigrations: readonly Migration[] = [
  {
    id: '0001_create_customers',
    async up(db) {
      await db.schema
        .createTable('customers')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('email', 'text')
        .addColumn('brand_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('customers_brand_idx').on('customers').columns(['brand_id', 'id']).execute()
    },
  },
  {
    id: '0002_customer_holds',
    async up(db) {
      await db.schema
        .createTable('customer_holds')
        .addColumn('customer_id', 'text', (c) => c.notNull())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('held_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('customer_holds_pk', ['customer_id', 'holder'])
        .execute()
      await db.schema
        .createTable('customer_held_resources')
        .addColumn('customer_id', 'text', (c) => c.notNull())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('resource_id', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('customer_held_resources_pk', [
          'customer_id',
          'holder',
          'kind',
          'resource_id',
        ])
        .execute()
    },
  },
  {
    id: '0003_customer_deletion_job',
    async up(db) {
      await db.schema.alterTable('customers').addColumn('job_id', 'text').execute()
    },
  },
  {
    id: '0004_closing_tenants',
    async up(db) {
      // Customers whose deletion was under way before the kernel knew closing tenants: closed now.
      await sql`update tenants set closing_at = ${new Date().toISOString()} where customer_id in (select id from customers where status = 'deleting')`.execute(
        db,
      )
    },
  },
]
