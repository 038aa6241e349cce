// Reads and writes of the brand billing tables, rendered in the standard billing contract's shapes.

import {
  type CustomerStanding,
  type Db,
  findVisible,
  orNotFound,
  type QuotaLimits,
  type Quotas,
  selectVisible,
  type TenantView,
} from '../../core/index.ts'
import type { Plan, Subscription, SubscriptionStatus } from '../../plugins/billing/contract.ts'
import type { BrandBillingTables, BrandPlansTable, BrandSubscriptionsTable } from './migrations.ts'

const tables = (db: Db) => db.withTables<BrandBillingTables>()

/** A plan as the standard contract shows it: plans mirrored from the billing system are always `active`. */
export function toPlan(row: BrandPlansTable): Plan {
  return {
    id: row.id,
    brandId: row.brand_id,
    name: row.name,
    description: null,
    limits: JSON.parse(row.limits) as QuotaLimits,
    status: 'active',
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

/** A subscription as the standard contract shows it; removal follows the billing system's cancellation at once. */
export function toSubscription(row: BrandSubscriptionsTable): Subscription {
  return {
    id: row.id,
    customerId: row.customer_id,
    planId: row.plan_id,
    status: row.status as SubscriptionStatus,
    externalId: row.external_id,
    suspendedReason: row.suspended_reason,
    suspendedAt: row.suspended_at,
    cancelledAt: row.cancelled_at,
    removalAt: row.cancelled_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

/** Plans a staff view may see: all for platform staff, the brand's for brand staff. */
export function visiblePlans(db: Db, view: TenantView) {
  const plans = tables(db).selectFrom('brand_billing_plans').selectAll()
  if (view.kind === 'all') return plans
  return plans.where('brand_id', '=', view.kind === 'brand' ? view.brandId : '')
}

/** The plan with this id inside a staff view, or 404. */
export async function findVisiblePlan(db: Db, view: TenantView, id: string): Promise<BrandPlansTable> {
  return orNotFound(await visiblePlans(db, view).where('id', '=', id).executeTakeFirst())
}

/** Subscriptions of customers inside a view. */
export function visibleSubscriptions(db: Db, view: TenantView) {
  return selectVisible(tables(db), 'brand_billing_subscriptions', view).selectAll()
}

/** The subscription with this id inside a view, or 404. */
export function findVisibleSubscription(
  db: Db,
  view: TenantView,
  id: string,
): Promise<BrandSubscriptionsTable> {
  return findVisible(tables(db), 'brand_billing_subscriptions', view, id)
}

/** The plan the billing system knows as `externalId`, or undefined. */
export function planByExternalId(db: Db, externalId: string) {
  return tables(db)
    .selectFrom('brand_billing_plans')
    .selectAll()
    .where('external_id', '=', externalId)
    .executeTakeFirst()
}

/** The subscription the billing system knows as `externalId`, or undefined. */
export function subscriptionByExternalId(db: Db, externalId: string) {
  return tables(db)
    .selectFrom('brand_billing_subscriptions')
    .selectAll()
    .where('external_id', '=', externalId)
    .executeTakeFirst()
}

/** Inserts a plan row. */
export async function insertPlan(db: Db, row: BrandPlansTable): Promise<void> {
  await tables(db).insertInto('brand_billing_plans').values(row).execute()
}

/** Changes columns of a plan row. */
export async function updatePlan(db: Db, id: string, changes: Partial<BrandPlansTable>): Promise<void> {
  await tables(db).updateTable('brand_billing_plans').set(changes).where('id', '=', id).execute()
}

/** Inserts a subscription row. */
export async function insertSubscription(db: Db, row: BrandSubscriptionsTable): Promise<void> {
  await tables(db).insertInto('brand_billing_subscriptions').values(row).execute()
}

/** Changes columns of a subscription row. */
export async function updateSubscription(
  db: Db,
  id: string,
  changes: Partial<BrandSubscriptionsTable>,
): Promise<void> {
  await tables(db).updateTable('brand_billing_subscriptions').set(changes).where('id', '=', id).execute()
}

/** Whether a callback with this id was applied before (a replay). */
export async function delivered(db: Db, id: string): Promise<boolean> {
  const row = await tables(db)
    .selectFrom('brand_billing_callbacks')
    .select('id')
    .where('id', '=', id)
    .executeTakeFirst()
  return row !== undefined
}

/** Records that the callback with this id was applied. */
export async function recordDelivery(db: Db, id: string): Promise<void> {
  await tables(db)
    .insertInto('brand_billing_callbacks')
    .values({ id, received_at: new Date().toISOString() })
    .execute()
}

/** The customer's subscriptions with their plans' limits. */
function subscriptionsOf(db: Db, customerId: string) {
  return tables(db)
    .selectFrom('brand_billing_subscriptions')
    .innerJoin('brand_billing_plans', 'brand_billing_plans.id', 'brand_billing_subscriptions.plan_id')
    .select(['brand_billing_subscriptions.status', 'brand_billing_plans.limits'])
    .where('brand_billing_subscriptions.customer_id', '=', customerId)
    .execute()
}

/** The rule the kernel's quota check and the holds follow: live plans bind, any suspension suspends. */
export async function standingOf(
  db: Db,
  customerId: string,
  quotas: Pick<Quotas, 'combine'>,
): Promise<CustomerStanding> {
  const rows = await subscriptionsOf(db, customerId)
  const live = rows.filter((row) => row.status === 'active' || row.status === 'past_due')
  if (live.length > 0)
    return {
      kind: 'subscribed',
      limits: quotas.combine(live.map((row) => JSON.parse(row.limits) as QuotaLimits)),
    }
  return rows.some((row) => row.status === 'suspended') ? { kind: 'suspended' } : { kind: 'none' }
}

/** Whether the customer holds any subscription that is not cancelled. */
export async function holdsAny(db: Db, customerId: string): Promise<boolean> {
  return (await subscriptionsOf(db, customerId)).some((row) => row.status !== 'cancelled')
}
