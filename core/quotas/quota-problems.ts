// Refusals of the quota check: one code per limit, and one for a customer whose billing is suspended.

import { defineProblems } from '../problem/problem-code.ts'
import type { QuotaMetric } from './quota-limits.ts'

/** The quota check's refusals; every plugin that reserves quota documents them on its creating operations. */
export const quotaProblems = defineProblems({
  site_limit_reached: {
    status: 422,
    detail: 'The customer already has as many sites as its limits allow.',
    description:
      'Creating the site would pass the customer’s `sites` limit (its plans, or the installation’s defaults). `limit` and `used` say where it stands; delete a site or move to a larger plan.',
  },
  domain_limit_reached: {
    status: 422,
    detail: 'The customer already serves as many domains as its limits allow.',
    description:
      'Adding the domain would pass the customer’s `domains` limit. `limit` and `used` say where it stands.',
  },
  database_limit_reached: {
    status: 422,
    detail: 'The customer already has as many databases as its limits allow.',
    description:
      'Creating the database would pass the customer’s `databases` limit. `limit` and `used` say where it stands.',
  },
  disk_limit_reached: {
    status: 422,
    detail: 'The customer’s sites would be given more disk than its limits allow.',
    description:
      'The disk quotas of the customer’s sites (`limits.diskMB`) would add up to more than its `diskMB` limit, or the even share of what is left would be 0 MB. `limit`, `used` and `requested` are in MB. (A site without a quota while disk is limited is `disk_quota_required`.)',
  },
  customer_suspended: {
    status: 422,
    detail:
      'The customer’s subscriptions are suspended; nothing new can be created until one is active again.',
    description:
      'The customer has no live subscription, and one is suspended or cancelled with its removal pending (docs/billing.md), so creating sites, databases or domains is refused until billing restores one or the removal has run.',
  },
})

/** The refusal for going past each limit. */
export const limitProblems = {
  sites: quotaProblems.site_limit_reached,
  domains: quotaProblems.domain_limit_reached,
  databases: quotaProblems.database_limit_reached,
  diskMB: quotaProblems.disk_limit_reached,
} as const satisfies Record<QuotaMetric, (typeof quotaProblems)[keyof typeof quotaProblems]>
