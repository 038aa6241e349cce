// Reads and writes of the plans and subscriptions tables; the only file that knows their columns.

import { type Db, type PlanSettings, type QuotaLimits, visibleTable } from '../../core/index.ts'
import type { Plan, PlanStatus, Subscription, SubscriptionStatus } from './contract.ts'
import type { BillingTables, PlansTable, SubscriptionsTable } from './migrations.ts'

const billing = (db: Db) => db.withTables<BillingTables>()

/** The API form of a plan row. */
export function toPlan(row: PlansTable): Plan {
  return {
    id: row.id,
    brandId: row.brand_id,
    name: row.name,
    description: row.description,
    limits: limitsOf(row),
    ...settingsOf(row),
    status: row.status as PlanStatus,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

/** A plan's limits. */
export function limitsOf(row: Pick<PlansTable, 'limits'>): QuotaLimits {
  return JSON.parse(row.limits) as QuotaLimits
}

/** A plan's settings (`php`, …), as the plugins that declare them describe them. */
export function settingsOf(row: Pick<PlansTable, 'settings'>): PlanSettings {
  return JSON.parse(row.settings) as PlanSettings
}

/** The API form of a subscription row. */
export function toSubscription(row: SubscriptionsTable): Subscription {
  return {
    id: row.id,
    customerId: row.customer_id,
    planId: row.plan_id,
    status: row.status as SubscriptionStatus,
    externalId: row.external_id,
    suspendedReason: row.suspended_reason,
    suspendedAt: row.suspended_at,
    cancelledAt: row.cancelled_at,
    removalAt: row.removal_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

/**
 * Plans as staff views reach them: all of them for platform staff, their brand's for brand staff, none otherwise
 * (plans are a staff area).
 */
export const plans = visibleTable(billing, 'plans', { brandColumn: 'brand_id' })

/** The active plans a brand offers its customers, as a query keyed by `plans.id`. */
export function offeredPlans(db: Db, brandId: string) {
  return billing(db)
    .selectFrom('plans')
    .selectAll()
    .where('brand_id', '=', brandId)
    .where('status', '=', 'active')
}

/** The plan with this id, or undefined (no tenancy: callers check the brand). */
export function findPlanRow(db: Db, id: string): Promise<PlansTable | undefined> {
  return billing(db).selectFrom('plans').selectAll().where('id', '=', id).executeTakeFirst()
}

/** Inserts a plan row. */
export async function insertPlan(db: Db, row: PlansTable): Promise<void> {
  await billing(db).insertInto('plans').values(row).execute()
}

/** Changes columns of a plan, stamping `updated_at`; returns the row after the change. */
export async function updatePlan(
  db: Db,
  id: string,
  changes: Partial<Omit<PlansTable, 'id' | 'brand_id' | 'created_at'>>,
): Promise<PlansTable> {
  await billing(db)
    .updateTable('plans')
    .set({ ...changes, updated_at: new Date().toISOString() })
    .where('id', '=', id)
    .execute()
  const row = await findPlanRow(db, id)
  if (!row) throw new Error(`Plan ${id} vanished during an update`)
  return row
}

/** Deletes the plan `id`. */
export async function deletePlan(db: Db, id: string): Promise<void> {
  await billing(db).deleteFrom('plans').where('id', '=', id).execute()
}

/**
 * How many subscriptions to the plan have not ended: every one but those cancelled whose customer's resources were
 * removed (or whose removal was passed over, the customer being subscribed again).
 */
export async function unendedSubscriptionsOf(db: Db, planId: string): Promise<number> {
  const row = await billing(db)
    .selectFrom('subscriptions')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('plan_id', '=', planId)
    .where((eb) => eb.or([eb('status', '<>', 'cancelled'), eb('removed_at', 'is', null)]))
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

/** How many plans the brand `brandId` has, in any state. */
export async function plansOfBrand(db: Db, brandId: string): Promise<number> {
  const row = await billing(db)
    .selectFrom('plans')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('brand_id', '=', brandId)
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

/** Subscriptions as views reach them: those of the customers inside the view. */
export const subscriptions = visibleTable(billing, 'subscriptions', { customerColumn: 'customer_id' })

/** The subscription row with this id, or undefined (no tenancy). */
export function findSubscriptionRow(db: Db, id: string): Promise<SubscriptionsTable | undefined> {
  return billing(db).selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirst()
}

/** Inserts a subscription row. */
export async function insertSubscription(db: Db, row: SubscriptionsTable): Promise<void> {
  await billing(db).insertInto('subscriptions').values(row).execute()
}

/** Changes columns of a subscription, stamping `updated_at`; returns the row after the change. */
export async function updateSubscription(
  db: Db,
  id: string,
  changes: Partial<Omit<SubscriptionsTable, 'id' | 'customer_id' | 'created_at'>>,
): Promise<SubscriptionsTable> {
  await billing(db)
    .updateTable('subscriptions')
    .set({ ...changes, updated_at: new Date().toISOString() })
    .where('id', '=', id)
    .execute()
  const row = await findSubscriptionRow(db, id)
  if (!row) throw new Error(`Subscription ${id} vanished during an update`)
  return row
}

/** Every subscription of a customer with its plan's limits: what its standing is worked out from. */
export function subscriptionsOfCustomer(db: Db, customerId: string) {
  return billing(db)
    .selectFrom('subscriptions')
    .innerJoin('plans', 'plans.id', 'subscriptions.plan_id')
    .select([
      'subscriptions.id',
      'subscriptions.status',
      'subscriptions.suspended_at',
      'subscriptions.removal_at',
      'subscriptions.removed_at',
      'plans.limits',
      'plans.settings',
    ])
    .where('subscriptions.customer_id', '=', customerId)
    .execute()
}

/** Marks the pending removals of these cancelled subscriptions as done (or made moot). */
export async function markRemoved(db: Db, ids: readonly string[], at: string): Promise<void> {
  if (ids.length === 0) return
  await billing(db)
    .updateTable('subscriptions')
    .set({ removed_at: at })
    .where('id', 'in', ids)
    .where('status', '=', 'cancelled')
    .where('removed_at', 'is', null)
    .execute()
}
