// Reads and writes of the customers table; the only file that knows its columns.

import type { Db } from '../../core/index.ts'
import type { Customer } from './contract.ts'
import type { CustomersTable, CustomersTables } from './migrations.ts'

/** The API form of a row. */
export function toCustomer(row: CustomersTable): Customer {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    status: 'active',
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

/** The customer with this id, or null. */
export async function findCustomer(db: Db, id: string): Promise<Customer | null> {
  const row = await db
    .withTables<CustomersTables>()
    .selectFrom('customers')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst()
  return row ? toCustomer(row) : null
}

/** Whether another customer has this contact e-mail. */
export async function emailTaken(db: Db, email: string): Promise<boolean> {
  const row = await db
    .withTables<CustomersTables>()
    .selectFrom('customers')
    .select('id')
    .where('email', '=', email)
    .executeTakeFirst()
  return row !== undefined
}

/** Inserts a customer row. */
export async function insertCustomer(db: Db, row: CustomersTable): Promise<void> {
  await db.withTables<CustomersTables>().insertInto('customers').values(row).execute()
}
