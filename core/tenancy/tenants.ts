// The tenancy registry: which brand each customer belongs to, and who is on each customer's team.

import { sql } from 'kysely'
import type { TeamRole } from '../auth/roles.ts'
import type { IdentityTables } from '../identity/identity-tables.ts'
import { nowIso } from '../ids/ids.ts'
import { preparedQuery } from '../store/prepared-query.ts'
import type { Db } from '../store/store.ts'
import type { TenancyTables } from './tenancy-tables.ts'

const kernel = (db: Db) => db.withTables<TenancyTables & IdentityTables>()

/** Records that `customerId` belongs to `brandId`; the customers plugin calls it in the creating transaction. */
export async function registerTenant(db: Db, customerId: string, brandId: string): Promise<void> {
  await kernel(db)
    .insertInto('tenants')
    .values({ customer_id: customerId, brand_id: brandId, closing_at: null })
    .execute()
}

/**
 * Marks `customerId` as closing: its deletion started, so it takes nothing new (the kernel refuses a declared
 * change for it with 409 `customer_deleting`). The customers plugin calls it in the transaction that starts the
 * deletion; the tenant is forgotten when the deletion ends. Idempotent.
 */
export async function closeTenant(db: Db, customerId: string): Promise<void> {
  await kernel(db)
    .updateTable('tenants')
    .set({ closing_at: nowIso() })
    .where('customer_id', '=', customerId)
    .where('closing_at', 'is', null)
    .execute()
}

/** Whether `customerId`'s deletion started ({@link closeTenant}); an unknown customer is not closing. */
export async function tenantClosing(db: Db, customerId: string): Promise<boolean> {
  const row = await kernel(db)
    .selectFrom('tenants')
    .select('closing_at')
    .where('customer_id', '=', customerId)
    .executeTakeFirst()
  return typeof row?.closing_at === 'string'
}

const brandRow = preparedQuery<{ customerId: string }, { brand_id: string }>((db, p) =>
  kernel(db).selectFrom('tenants').select('brand_id').where('customer_id', '=', p.customerId),
)

/**
 * Brands of customers seen by this process. A customer's brand is set when it is registered and never changes
 * (no statement updates `tenants`), and ids are never reused, so a brand once read stays true, on every instance;
 * every change a customer makes (usage, audit, events) asks for it. Bounded, oldest out first.
 */
const knownBrands = new Map<string, string>()
const maxKnownBrands = 100_000

/** The brand a customer belongs to, or null for an unknown customer. */
export async function brandOfCustomer(db: Db, customerId: string): Promise<string | null> {
  const known = knownBrands.get(customerId)
  if (known !== undefined) return known
  const [row] = await brandRow(db, { customerId })
  if (!row) return null
  if (knownBrands.size >= maxKnownBrands) {
    const oldest = knownBrands.keys().next()
    if (!oldest.done) knownBrands.delete(oldest.value)
  }
  knownBrands.set(customerId, row.brand_id)
  return row.brand_id
}

/** A member of a customer's team. */
export interface Member {
  readonly userId: string
  readonly email: string
  readonly role: TeamRole
  readonly createdAt: string
}

/** The team of a customer as a query, for `page()`: keyed by `memberships.user_id`. */
export function membersQuery(db: Db, customerId: string) {
  return kernel(db)
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select([
      'memberships.user_id as userId',
      'users.email as email',
      'memberships.role as role',
      'memberships.created_at as createdAt',
    ])
    .where('memberships.customer_id', '=', customerId)
}

/** One member of a customer's team, or null. */
export async function findMember(db: Db, customerId: string, userId: string): Promise<Member | null> {
  const row = await membersQuery(db, customerId).where('memberships.user_id', '=', userId).executeTakeFirst()
  return row ? { ...row, role: row.role as TeamRole } : null
}

/** Puts a user on a customer's team. */
export async function addMember(db: Db, customerId: string, userId: string, role: TeamRole): Promise<void> {
  await kernel(db)
    .insertInto('memberships')
    .values({ customer_id: customerId, user_id: userId, role, created_at: nowIso() })
    .execute()
}

/** Changes a member's role. */
export async function changeMemberRole(
  db: Db,
  customerId: string,
  userId: string,
  role: TeamRole,
): Promise<void> {
  await kernel(db)
    .updateTable('memberships')
    .set({ role })
    .where('customer_id', '=', customerId)
    .where('user_id', '=', userId)
    .execute()
}

/** Takes a user off a customer's team. */
export async function removeMember(db: Db, customerId: string, userId: string): Promise<void> {
  await kernel(db)
    .deleteFrom('memberships')
    .where('customer_id', '=', customerId)
    .where('user_id', '=', userId)
    .execute()
}

/** How many owners a customer's team has. */
export async function countOwners(db: Db, customerId: string): Promise<number> {
  const row = await kernel(db)
    .selectFrom('memberships')
    .select(sql<number>`count(*)`.as('n'))
    .where('customer_id', '=', customerId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow()
  return Number(row.n)
}
