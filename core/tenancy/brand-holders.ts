// What of the kernel's own records keeps a brand: its customers (the tenancy) and its staff (identity), counted
// for the plugin that owns brands, which refuses a brand's deletion while either holds it.

import type { IdentityTables } from '../identity/identity-tables.ts'
import type { Db } from '../store/store.ts'
import type { TenancyTables } from './tenancy-tables.ts'

/**
 * How many customers and staff users belong to the brand `brandId`, read through `db` (the deleting transaction's,
 * so a customer or staff member made meanwhile is seen or waits).
 * @example const { customers, staff } = await brandHolders(trx, brand.id)
 */
export async function brandHolders(
  db: Db,
  brandId: string,
): Promise<{ readonly customers: number; readonly staff: number }> {
  const customers = await db
    .withTables<TenancyTables>()
    .selectFrom('tenants')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('brand_id', '=', brandId)
    .executeTakeFirstOrThrow()
  const staff = await db
    .withTables<IdentityTables>()
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('brand_id', '=', brandId)
    .executeTakeFirstOrThrow()
  return { customers: Number(customers.count), staff: Number(staff.count) }
}
