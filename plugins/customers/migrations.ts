// The customers plugin's tables.

import type { Migration } from '../../core/index.ts'

/** Row of `customers`. */
export interface CustomersTable {
  id: string
  name: string
  email: string | null
  brand_id: string
  status: string
  created_at: string
  updated_at: string
}

/** The plugin's tables, for `db.withTables<CustomersTables>()`. */
export type CustomersTables = { customers: CustomersTable }

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
]
