// Reads and writes of the customers table; the only file that knows its columns.

import { type Db, type TenantView, visibleTable } from '../../core/index.ts'
import type { Customer } from './contract.ts'
import type { CustomersTable, CustomersTables } from './migrations.ts'

/** The API form of a row. */
export function toCustomer(row: CustomersTable): Customer {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    brandId: row.brand_id,
    status: row.status === 'deleting' ? 'deleting' : 'active',
    jobId: row.job_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

/** Customers as views reach them: a customer is in a view when its own id is. */
export const customers = visibleTable((db: Db) => db.withTables<CustomersTables>(), 'customers', {
  customerColumn: 'id',
})

/** Changes a customer's name and contact e-mail. */
export async function updateCustomer(
  db: Db,
  id: string,
  changes: { name: string; email: string | null; updatedAt: string },
): Promise<void> {
  await db
    .withTables<CustomersTables>()
    .updateTable('customers')
    .set({ name: changes.name, email: changes.email, updated_at: changes.updatedAt })
    .where('id', '=', id)
    .execute()
}

/** The customer with this id inside a view, or null. */
export async function findCustomer(db: Db, view: TenantView, id: string): Promise<Customer | null> {
  const row = await customers.visible(db, view).where('customers.id', '=', id).executeTakeFirst()
  return row ? toCustomer(row) : null
}

/** Inserts a customer row. */
export async function insertCustomer(db: Db, row: CustomersTable): Promise<void> {
  await db.withTables<CustomersTables>().insertInto('customers').values(row).execute()
}
