// A customer's limits and use as the API shows them (capabilities and usage).

import { Type as t } from '@sinclair/typebox'

const Use = (what: string) =>
  t.Object(
    {
      limit: t.Union([t.Integer({ minimum: 0 }), t.Null()], {
        description: `The limit on ${what}; null: none.`,
      }),
      used: t.Integer({ description: `${what} the customer holds now.` }),
      available: t.Union([t.Integer({ minimum: 0 }), t.Null()], {
        description: 'What is left before the limit (never below 0); null: no limit.',
      }),
    },
    { description: `The customer’s ${what}: limit and use.` },
  )

/** One customer's limits beside its use. */
export const Quota = t.Object(
  {
    customerId: t.String({ description: 'The customer, `cus_…`.' }),
    source: t.Union([t.Literal('default'), t.Literal('subscriptions'), t.Literal('suspended')], {
      description:
        '`default`: the customer has no subscription and the installation’s default limits apply; `subscriptions`: the combined limits of its active and past-due subscriptions; `suspended`: every subscription is suspended, so nothing new may be created (every limit reads 0).',
    }),
    limits: t.Object({
      sites: Use('sites'),
      databases: Use('databases'),
      domains: Use('domains'),
      diskMB: Use('disk (MB) given to sites'),
    }),
  },
  { $id: 'Quota' },
)
