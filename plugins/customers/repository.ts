// Reads and writes of the customers table; the only file that knows its columns.

import { type Db, nowIso, type TenantView, visibleTable } from '../../core/index.ts'
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

/** The row of a customer, whatever its state, or undefined. */
export function findCustomerRow(db: Db, id: string): Promise<CustomersTable | undefined> {
  return db
    .withTables<CustomersTables>()
    .selectFrom('customers')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst()
}

/** Marks a customer `deleting` with its deletion job; answers the row after. */
export async function updateCustomerDeletion(db: Db, id: string, jobId: string): Promise<CustomersTable> {
  await db
    .withTables<CustomersTables>()
    .updateTable('customers')
    .set({ status: 'deleting', job_id: jobId, updated_at: nowIso() })
    .where('id', '=', id)
    .execute()
  const row = await findCustomerRow(db, id)
  if (!row) throw new Error(`customer ${id} vanished while it was marked deleting`)
  return row
}

/** Removes a customer's row and its holds (what they covered is gone with it). */
export async function deleteCustomerRows(db: Db, id: string): Promise<void> {
  const tables = db.withTables<CustomersTables>()
  await tables.deleteFrom('customer_held_resources').where('customer_id', '=', id).execute()
  await tables.deleteFrom('customer_holds').where('customer_id', '=', id).execute()
  await tables.deleteFrom('customers').where('id', '=', id).execute()
}
