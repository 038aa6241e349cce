// Checkout, for customers: the plans their brand offers, and subscribing to one.

import {
  customerInView,
  defineRoute,
  kernelProblems,
  orNotFound,
  type PluginContext,
  Problem,
  Reply,
  type RouteDefinition,
  t,
} from '../../../core/index.ts'
import { openCustomerProblems } from '../../customers/contract.ts'
import { billingScopes, planSchema, Subscription } from '../contract.ts'
import { billingProblems } from '../problems.ts'
import { offeredPlans, toPlan } from '../repository.ts'
import type { SubscriptionChanges } from '../subscription-changes.ts'

/** Whether customers may subscribe themselves through `POST /checkout`. */
export type CheckoutMode = 'open' | 'closed'

const CheckoutBody = t.Object(
  {
    customerId: t.String({ minLength: 1, maxLength: 64, description: 'The subscribing customer, `cus_…`.' }),
    planId: t.String({
      minLength: 1,
      maxLength: 64,
      description: 'An active plan of the customer’s brand, `pln_…`.',
    }),
  },
  { $id: 'CheckoutBody' },
)

const OfferedPlansQuery = t.Object({
  customerId: t.String({
    minLength: 1,
    maxLength: 64,
    description: 'The customer choosing a plan, `cus_…`.',
  }),
})

/** The checkout routes; with `checkout: 'closed'`, `POST /checkout` refuses every caller. */
export function checkoutRoutes(
  context: PluginContext,
  changes: SubscriptionChanges,
  settings: { readonly checkout: CheckoutMode },
): RouteDefinition[] {
  const Plan = planSchema(context.quotas)
  return [
    defineRoute({
      method: 'POST',
      path: '/checkout',
      operationId: 'checkout',
      idempotent: true,
      summary: 'Subscribe to a plan (checkout)',
      description:
        'A customer’s owner or billing member subscribes the customer to an active plan of its brand, once: while the customer holds a live subscription it is 409 `already_subscribed` (more plans or another plan go through the provider: `POST /subscriptions`, `PATCH /subscriptions/{id}`), and while it holds a suspended one 409 `subscription_suspended` (only the provider lifts a suspension). After a cancellation, even within its grace period, checkout is open again and restores the suspended sites. This plugin takes no payment: the subscription is `active` at once. An installation that takes payment elsewhere closes checkout (`BILLING_CHECKOUT=closed`: 403 `checkout_closed`). Answers 201 with the subscription.',
      scope: billingScopes.manage,
      body: CheckoutBody,
      responses: {
        201: {
          description: 'The new subscription.',
          schema: Subscription,
          headers: { Location: 'URL of the subscription.' },
        },
      },
      problems: [
        billingProblems.checkout_closed,
        billingProblems.unknown_billing_customer,
        ...openCustomerProblems,
        billingProblems.unknown_plan,
        billingProblems.plan_archived,
        billingProblems.subscription_suspended,
        billingProblems.already_subscribed,
      ],
      async handler(input) {
        if (settings.checkout === 'closed') throw new Problem(billingProblems.checkout_closed)
        const subscription = await changes.start(input, input.body, 'checkout')
        return Reply.created(subscription, `/subscriptions/${subscription.id}`)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/checkout/plans',
      operationId: 'listOfferedPlans',
      summary: 'List the plans a customer can subscribe to',
      description:
        'The active plans of the customer’s brand, oldest first. A customer outside the caller’s view is 404.',
      scope: billingScopes.read,
      query: OfferedPlansQuery,
      list: { item: Plan, key: 'plans.id', toItem: toPlan },
      problems: [kernelProblems.not_found],
      async handler({ query, view }) {
        const visible = await customerInView(context.db, view, query.customerId)
        const brandId = orNotFound(
          visible ? await context.tenancy.brandOf(context.db, query.customerId) : null,
        )
        return offeredPlans(context.db, brandId)
      },
    }),
  ]
}
