// The billing plugin's public contract: plans, subscriptions and their states, the scopes and the events. A brand's
// own billing plugin that replaces this one declares the same, so clients and integrations see no seam.

import {
  defineDependents,
  type EventDefinition,
  enumOf,
  type PlanSettings,
  type QuotaLimits,
  type Quotas,
  type Static,
  type TObject,
  t,
} from '../../core/index.ts'

/** States of a plan: archived plans keep their subscriptions but take no new ones. */
export const planStatuses = ['active', 'archived'] as const
export type PlanStatus = (typeof planStatuses)[number]

const planFields = {
  id: t.String({ description: 'Identifier, `pln_…`.', examples: ['pln_01JDQ3V6Y4T1ZK0M2N5P7R9S8W'] }),
  brandId: t.String({ description: 'The brand that offers it, `brd_…`; only its customers subscribe.' }),
  name: t.String({ description: 'Display name: `Starter`.' }),
  description: t.Union([t.String(), t.Null()], { description: 'What the plan is for, if given.' }),
  status: enumOf(planStatuses, {
    description: '`active` plans take new subscriptions; `archived` ones only keep theirs.',
  }),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
}

/**
 * A plan as the API returns it. Its `limits` are the metrics the installation's plugins declare
 * (`context.quotas.limitsSchema`, `QuotaLimits`), so the schema is made in `routes(context)`.
 */
export function planSchema(quotas: Pick<Quotas, 'limitsSchema' | 'settings'>) {
  return t.Object(
    { ...planFields, limits: quotas.limitsSchema, ...planSettingMembers(quotas) },
    { $id: 'Plan' },
  )
}
export type Plan = Static<TObject<typeof planFields>> & { limits: QuotaLimits } & PlanSettings

/** The settings plugins let plans carry (`php`), each a member of the plan, absent when not set. */
export function planSettingMembers(quotas: Pick<Quotas, 'settings'>) {
  return Object.fromEntries(
    quotas.settings.map((setting) => [
      setting.name,
      t.Optional({ ...setting.schema, description: setting.description }),
    ]),
  )
}

/**
 * States of a subscription (docs/billing.md has the transitions). `active` and `past_due` are live: their plans'
 * limits bind the customer; `suspended` suspends the customer's resources; `cancelled` is final.
 */
export const subscriptionStatuses = ['active', 'past_due', 'suspended', 'cancelled'] as const
export type SubscriptionStatus = (typeof subscriptionStatuses)[number]

/** Which state may follow which; anything else is 409 `illegal_subscription_transition`. */
export const subscriptionTransitions: Readonly<Record<SubscriptionStatus, readonly SubscriptionStatus[]>> = {
  active: ['past_due', 'suspended', 'cancelled'],
  past_due: ['active', 'suspended', 'cancelled'],
  suspended: ['active', 'cancelled'],
  cancelled: [],
}

/** A subscription as the API returns it. */
export const Subscription = t.Object(
  {
    id: t.String({ description: 'Identifier, `sub_…`.', examples: ['sub_01JDQ3V6Y4T1ZK0M2N5P7R9S8W'] }),
    customerId: t.String({ description: 'The subscribing customer, `cus_…`.' }),
    planId: t.String({ description: 'The plan, `pln_…`; its limits apply while the subscription is live.' }),
    status: enumOf(subscriptionStatuses, {
      description:
        '`active` and `past_due` are live (the plan’s limits apply); `suspended` suspends the customer’s resources; `cancelled` is final.',
    }),
    externalId: t.Union([t.String(), t.Null()], {
      description: 'The id the external billing system knows it by, if it gave one.',
    }),
    suspendedReason: t.Union([t.String(), t.Null()], {
      description:
        'Why it is suspended, while it is (cleared by unsuspend). A subscription cancelled while suspended keeps it, and keeps checkout refused until its removal.',
    }),
    suspendedAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
    cancelledAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
    removalAt: t.Union([t.String({ format: 'date-time' }), t.Null()], {
      description:
        'Once cancelled: when the customer’s resources are removed, unless it holds a subscription that is not cancelled by then, or another of its cancellations ends its grace period later (the latest `removalAt` decides).',
    }),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: 'Subscription' },
)
export type Subscription = Static<typeof Subscription>

/** Scope names the plugin declares: `plan:*` for staff, `billing:*` for customers' billing people and systems. */
export const billingScopes = {
  planRead: 'plan:read',
  planManage: 'plan:manage',
  read: 'billing:read',
  manage: 'billing:manage',
} as const

/** The scopes with their descriptions and who holds them; a replacement declares the same. */
export const billingScopeDefinitions = [
  { name: billingScopes.planRead, description: 'Read plans', staff: true },
  { name: billingScopes.planManage, description: 'Create and change plans', staff: true },
  {
    name: billingScopes.read,
    description: 'Read billing and subscriptions',
    roles: ['owner', 'admin', 'billing'],
  },
  {
    name: billingScopes.manage,
    description: 'Change billing and subscriptions',
    roles: ['owner', 'billing'],
  },
] as const

/** What plan events carry: the `Plan` the plan routes document (its limits are known only to `routes`). */
const PlanPayload = t.Ref('Plan')

/**
 * The event kinds, each carrying the plan or subscription after the change; a replacement declares the same. Plan
 * events let an external system that mirrors plans stay in sync.
 */
export const billingEvents: readonly EventDefinition[] = [
  { kind: 'plan.created', description: 'Staff created a plan.', payload: PlanPayload },
  {
    kind: 'plan.updated',
    description: 'A plan changed: its name, description, limits, or status (archived or active again).',
    payload: PlanPayload,
  },
  {
    kind: 'plan.deleted',
    description: 'Staff deleted a plan (no subscription held it).',
    payload: PlanPayload,
  },
  { kind: 'subscription.created', description: 'A customer subscribed to a plan.', payload: Subscription },
  {
    kind: 'subscription.updated',
    description: 'A subscription changed plan, external id, or moved between `active` and `past_due`.',
    payload: Subscription,
  },
  {
    kind: 'subscription.suspended',
    description: 'A subscription was suspended (with `suspendedReason`); the customer’s sites are suspended.',
    payload: Subscription,
  },
  {
    kind: 'subscription.unsuspended',
    description:
      'A suspended subscription is active again; the sites its suspension suspended are restored (those staff suspended too stay suspended).',
    payload: Subscription,
  },
  {
    kind: 'subscription.cancelled',
    description: 'A subscription was cancelled; `removalAt` says when the customer’s resources go.',
    payload: Subscription,
  },
]

/** The holder name billing puts customers on hold under (`customers.suspensions`). */
export const billingHolder = 'billing'

/** A plan as its dependents see it when it is to be deleted. */
export interface PlanRef {
  readonly id: string
  readonly brandId: string
}

/**
 * What keeps a plan: its subscriptions that have not ended (counted by billing itself), and whatever other plugins
 * hang on plans; while any counts more than 0, `DELETE /plans/{id}` is refused with 409 `plan_in_use`.
 * @example context.extensionPoint(planDependents).add({ name: 'offers', blocking: (db, plan) => countOffers(db, plan.id) })
 */
export const planDependents = defineDependents<PlanRef>({
  id: 'billing.planDependents',
  owner: 'billing',
  description: 'What keeps a plan from being deleted (its subscriptions that have not ended, …).',
})
