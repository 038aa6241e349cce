// Refusals of the billing plugin.

import { defineProblems } from '../../core/index.ts'

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
      'The operation would move the subscription between states docs/billing.md does not allow, e.g. unsuspending an active one or changing a cancelled one. `status` names the current state.',
  },
})
