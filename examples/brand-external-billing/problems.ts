// Refusals of the brand's billing plugin.

import { defineProblems } from '../../core/index.ts'

/** The brand billing plugin's problem codes (`illegal_subscription_transition` as the standard plugin has it). */
export const externalBillingProblems = defineProblems({
  checkout_external: {
    status: 403,
    detail: 'Subscriptions are bought on the brand’s own billing site, not through this API.',
    description:
      'This installation takes subscriptions only from its billing system’s signed callbacks; `checkoutUrl` says where customers buy plans.',
  },
  invalid_callback_signature: {
    status: 401,
    detail: 'The callback’s signature is missing or does not match its body.',
    description:
      'A billing callback must carry `X-Billing-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` made with the shared secret.',
  },
  stale_callback: {
    status: 401,
    detail: 'The callback was signed too long ago (or in the future).',
    description:
      'The signature’s timestamp is more than the tolerance (5 minutes) away from the panel’s clock.',
  },
  unknown_callback_reference: {
    status: 422,
    detail: 'The callback names a customer or plan this installation does not have.',
    description:
      'A `subscription.updated` callback must name an existing customer (`cus_…`) of the brand this billing system bills for, and a plan an earlier `plan.updated` callback announced.',
  },
  illegal_subscription_transition: {
    status: 409,
    detail: 'The subscription is not in a state that allows this.',
    description:
      'A cancelled subscription cannot be made live again; the billing system must start a new one.',
  },
})
