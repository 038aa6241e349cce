// Refusals of the billing plugin.

import { defineProblems } from '../../core/index.ts'

/** The billing plugin's problem codes, catalogued in docs/problem-codes.md. */
export const billingProblems = defineProblems({
  unknown_plan: {
    status: 422,
    detail: 'No plan with this id is offered to this customer.',
    description:
      'The `planId` names no plan the caller may see, or a plan of another brand than the customer’s (plans are offered per brand).',
  },
  plan_archived: {
    status: 422,
    detail: 'This plan is archived and takes no new subscriptions.',
    description:
      'Archived plans keep their subscriptions; choose an active plan, or set the plan `active` again.',
  },
  unknown_billing_customer: {
    status: 422,
    detail: 'No customer with this id exists within your view.',
    description:
      'The `customerId` names no customer the caller may manage billing for (missing and invisible look the same).',
  },
  illegal_subscription_transition: {
    status: 409,
    detail: 'The subscription is not in a state that allows this.',
    description:
      'The operation would move the subscription between states docs/billing.md does not allow, e.g. unsuspending an active one, changing a cancelled one, or `PATCH {status}` on one that is not `active` or `past_due` (suspension ends with `/unsuspend`). `status` names the current state.',
  },
  subscription_suspended: {
    status: 409,
    detail: 'The customer has a suspended subscription; checkout cannot lift a suspension.',
    description:
      'Checkout is refused while the customer holds a `suspended` subscription: a new subscription would release the hold on its sites. The provider lifts a suspension (`POST /subscriptions/{id}/unsuspend`, or a new subscription through `POST /subscriptions`). `subscriptionId` names the suspended one.',
  },
  already_subscribed: {
    status: 409,
    detail: 'The customer already has a subscription; changing or adding plans goes through the provider.',
    description:
      'A customer checks out once: while it holds a live (`active` or `past_due`) subscription, more plans or a change of plan are made by staff or the billing system (`POST /subscriptions`, `PATCH /subscriptions/{id}`). Once the old one is `cancelled`, checkout is open again. `subscriptionId` names the live one.',
  },
  checkout_closed: {
    status: 403,
    detail: 'This installation takes no self-service checkout; subscriptions are made by the provider.',
    description:
      'The operator closed checkout (`BILLING_CHECKOUT=closed`, `billingPlugin({ checkout: "closed" })`), typically because payment is taken elsewhere and the billing system creates subscriptions (`POST /subscriptions`).',
  },
  plan_in_use: {
    status: 409,
    detail: 'Subscriptions still hold this plan.',
    description:
      'A plan is deleted only once no subscription holds it: one that is `active`, `past_due`, `suspended`, or cancelled with its customer’s resources not yet removed (its grace period). `blockers` names them with how many (`[{ "name": "subscriptions", "count": 2 }]`). Archive the plan (`status: "archived"`) to stop new subscriptions meanwhile; ended subscriptions keep its id.',
  },
})
