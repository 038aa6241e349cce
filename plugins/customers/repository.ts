// Reads and writes of the customers table; the only file that knows its columns.

import { type Db, findVisible, selectVisible, type TenantView } from '../../core/index.ts'
import type { Customer } from './contract.ts'
import type { CustomersTable, CustomersTables } from './migrations.ts'

/** The API form of a row. */
export function toCustomer(row: CustomersTable): Customer {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    brandId: row.brand_id,
    status: 'active',
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

/** Customers inside a view as a query, for reads and lists: keyed by `customers.id`. */
export function visibleCustomers(db: Db, view: TenantView) {
  return selectVisible(db.withTables<CustomersTables>(), 'customers', view, 'id').selectAll()
}

/** The customer with this id inside a view, or 404 `not_found` (missing and invisible alike). */
export function findVisibleCustomer(db: Db, view: TenantView, id: string): Promise<CustomersTable> {
  return findVisible(db.withTables<CustomersTables>(), 'customers', view, id, { customerColumn: 'id' })
}

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
  const row = await visibleCustomers(db, view).where('customers.id', '=', id).executeTakeFirst()
  return row ? toCustomer(row) : null
}

/** Inserts a customer row. */
export async function insertCustomer(db: Db, row: CustomersTable): Promise<void> {
  await db.withTables<CustomersTables>().insertInto('customers').values(row).execute()
}
