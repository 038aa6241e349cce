// Subscription operations: customers' billing people read them and may cancel; the provider's staff and external
// billing systems (staff API tokens with `billing:manage`) create, change, suspend and unsuspend them.

import {
  defineRoute,
  enumOf,
  nonBlankText,
  Reply,
  type RouteDefinition,
  resourceRoutes,
  t,
} from '../../../core/index.ts'
import { openCustomerProblems } from '../../customers/contract.ts'
import { billingScopes, Subscription, subscriptionStatuses } from '../contract.ts'
import { billingProblems } from '../problems.ts'
import { subscriptions, toSubscription } from '../repository.ts'
import type { SubscriptionChanges } from '../subscription-changes.ts'

const ExternalId = t.String({
  minLength: 1,
  maxLength: 200,
  description: 'The id your billing system knows it by (WHMCS service id, Stripe subscription id, ...).',
})

const CreateSubscriptionBody = t.Object(
  {
    customerId: t.String({ minLength: 1, maxLength: 64, description: 'The subscribing customer, `cus_…`.' }),
    planId: t.String({
      minLength: 1,
      maxLength: 64,
      description: 'A plan of the customer’s brand, `pln_…`.',
    }),
    externalId: t.Optional(ExternalId),
  },
  { $id: 'CreateSubscriptionBody' },
)

const UpdateSubscriptionBody = t.Object(
  {
    planId: t.Optional(
      t.String({ minLength: 1, maxLength: 64, description: 'Another plan of the customer’s brand.' }),
    ),
    status: t.Optional(
      t.Union([t.Literal('active'), t.Literal('past_due')], {
        description: 'Payment standing: `past_due` keeps everything running; suspend with `/suspend`.',
      }),
    ),
    externalId: t.Optional(t.Union([ExternalId, t.Null()], { description: 'null removes it.' })),
  },
  { $id: 'UpdateSubscriptionBody' },
)

const SuspendSubscriptionBody = t.Object(
  {
    reason: nonBlankText({
      maxLength: 500,
      description: 'Why, in words (`invoice 1042 unpaid`); shown on the subscription and in audit entries.',
    }),
  },
  { $id: 'SuspendSubscriptionBody' },
)

const ListSubscriptionsQuery = t.Object({
  customerId: t.Optional(t.String({ maxLength: 64, description: 'Only this customer’s subscriptions.' })),
  status: t.Optional(enumOf(subscriptionStatuses, { description: 'Only subscriptions in this state.' })),
  planId: t.Optional(t.String({ maxLength: 64, description: 'Only subscriptions to this plan.' })),
  externalId: t.Optional(
    t.String({ maxLength: 200, description: 'Only the subscription with this external id.' }),
  ),
})

const SubscriptionParams = { id: 'sub' }

const transition = [billingProblems.illegal_subscription_transition]

/** The subscriptions routes. */
export function subscriptionRoutes(changes: SubscriptionChanges): RouteDefinition[] {
  return [
    ...resourceRoutes({
      item: Subscription,
      name: 'subscription',
      path: '/subscriptions',
      key: { id: 'sub' },
      scopes: { read: billingScopes.read, manage: billingScopes.manage },
      table: { rows: subscriptions, toItem: toSubscription },
      list: {
        summary: 'List subscriptions',
        description:
          'Only subscriptions of customers the caller may see, oldest first. Every filter narrows the list.',
        query: ListSubscriptionsQuery,
        filters: {
          customerId: 'customer_id',
          status: 'status',
          planId: 'plan_id',
          externalId: 'external_id',
        },
        key: 'subscriptions.id',
      },
      read: { summary: 'Read a subscription' },
    }),
    defineRoute({
      method: 'POST',
      path: '/subscriptions',
      operationId: 'createSubscription',
      idempotent: true,
      summary: 'Subscribe a customer to a plan',
      description:
        'For the provider’s staff and external billing systems (a staff API token with `billing:manage`): starts an `active` subscription to a plan of the customer’s brand. Customers use `POST /checkout`. Restores the customer’s resources if billing had suspended them.',
      scope: billingScopes.manage,
      staff: true,
      body: CreateSubscriptionBody,
      responses: {
        201: {
          description: 'The new subscription.',
          schema: Subscription,
          headers: { Location: 'URL of the subscription.' },
        },
      },
      problems: [
        billingProblems.unknown_billing_customer,
        ...openCustomerProblems,
        billingProblems.unknown_plan,
        billingProblems.plan_archived,
      ],
      async handler(input) {
        const subscription = await changes.start(input, input.body, 'api')
        return Reply.created(subscription, `/subscriptions/${subscription.id}`)
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/subscriptions/:id',
      operationId: 'updateSubscription',
      summary: 'Change a subscription’s plan or payment standing',
      description:
        'Staff and billing systems: moves to another plan of the customer’s brand (its limits apply at once), between `active` and `past_due`, or changes `externalId`. `status` moves only an `active` or `past_due` subscription (a suspended one is lifted with `/unsuspend`, so its sites come back and `subscription.unsuspended` is sent); any change of a cancelled one is 409 `illegal_subscription_transition`.',
      scope: billingScopes.manage,
      staff: true,
      params: SubscriptionParams,
      body: UpdateSubscriptionBody,
      responses: { 200: { description: 'The subscription after the change.', schema: Subscription } },
      problems: [...transition, billingProblems.unknown_plan, billingProblems.plan_archived],
      handler: (input) => changes.update(input, input.params.id, input.body),
    }),
    defineRoute({
      method: 'POST',
      path: '/subscriptions/:id/suspend',
      operationId: 'suspendSubscription',
      summary: 'Suspend a subscription',
      description:
        'Staff and billing systems: an `active` or `past_due` subscription becomes `suspended`, and `subscription.suspended` is sent. When the customer has no other live subscription, every running site of the customer is suspended in the same transaction (a `site.suspend` job each; sites still provisioning come up suspended), and the customer creates nothing until a subscription is live again (site creates answer 422 `customer_suspended`).',
      scope: billingScopes.manage,
      staff: true,
      params: SubscriptionParams,
      body: SuspendSubscriptionBody,
      responses: { 200: { description: 'The suspended subscription.', schema: Subscription } },
      problems: transition,
      handler: (input) => changes.suspend(input, input.params.id, input.body.reason.trim()),
    }),
    defineRoute({
      method: 'POST',
      path: '/subscriptions/:id/unsuspend',
      operationId: 'unsuspendSubscription',
      summary: 'Unsuspend a subscription',
      description:
        'Staff and billing systems: a `suspended` subscription becomes `active` and `subscription.unsuspended` is sent; the sites its suspension covers become `active` again when no other suspension keeps them (a site staff suspended, `suspendedByStaff`, stays suspended). This, or a new subscription through `POST /subscriptions`, is the only way to lift a suspension: checkout refuses while one is suspended.',
      scope: billingScopes.manage,
      staff: true,
      params: SubscriptionParams,
      responses: { 200: { description: 'The active subscription.', schema: Subscription } },
      problems: transition,
      handler: (input) => changes.unsuspend(input, input.params.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/subscriptions/:id/cancel',
      operationId: 'cancelSubscription',
      summary: 'Cancel a subscription',
      description:
        'Customers (owners and billing members) and billing systems: the subscription becomes `cancelled` for good and `subscription.cancelled` is sent. When the customer has no other live subscription its sites are suspended at once, and removed when `removalAt` comes (the grace period, 30 days by default) unless the customer subscribes again meanwhile, or another of its cancellations is still in its grace period then (the latest `removalAt` decides). Cancelling a suspended subscription keeps `suspendedReason`: checkout stays refused (409 `subscription_suspended`) until the removal.',
      scope: billingScopes.manage,
      params: SubscriptionParams,
      responses: { 200: { description: 'The cancelled subscription.', schema: Subscription } },
      problems: transition,
      handler: (input) => changes.cancel(input, input.params.id),
    }),
  ]
}
