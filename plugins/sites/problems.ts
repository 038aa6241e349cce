// Refusals of the sites plugin.

import { defineProblems } from '../../core/index.ts'

/** The sites plugin's problem codes, catalogued in docs/problem-codes.md. */
export const sitesProblems = defineProblems({
  unknown_customer: {
    status: 422,
    detail: 'No customer with this id exists within your view.',
    description:
      'The `customerId` names no customer the caller may see (missing and invisible look the same).',
  },
  unknown_site_type: {
    status: 422,
    detail: 'This installation has no site type of that name.',
    description: 'The `type` is not one of the installed site types; capabilities lists them.',
  },
  invalid_domain: {
    status: 422,
    detail: 'The domain is not a valid fully qualified host name.',
    description:
      'The `domain` must be a host name of at least two labels (`example.com`), no scheme, port or path.',
  },
  domain_in_use: {
    status: 409,
    detail: 'Another site already uses this domain.',
    description: 'A domain is served by one site of the installation at a time.',
  },
  illegal_site_transition: {
    status: 409,
    detail: 'The site is not in a state that allows this.',
    description:
      'The operation would move the site between states the lifecycle does not allow (docs/sites.md), e.g. suspending a site that is still provisioning, or unsuspending one that is running. `status` names the current state.',
  },
  site_busy: {
    status: 409,
    detail: 'The site is being changed; try again once its job has finished.',
    description:
      'Changing the domain or limits of a site whose state is `provisioning` or `deleting` must wait.',
  },
  site_held: {
    status: 409,
    detail: 'The site is suspended because its customer is on hold; lift the hold instead.',
    description:
      'Staff asked to unsuspend a site that a hold on its customer covers (billing suspended it, docs/billing.md). `holders` names who holds it: unsuspend the customer’s subscription (`POST /subscriptions/{id}/unsuspend`), and the site comes back unless staff suspended it too.',
  },
  disk_quota_required: {
    status: 422,
    detail: 'The customer’s disk is limited, so every site needs a disk quota.',
    description:
      'While the customer’s `diskMB` limit is set, a site must have `limits.diskMB`: null is refused, and a create without it is refused when the customer’s sites are unlimited (with a sites limit, the default is an even share of the free disk over the free site slots).',
  },
  no_node_available: {
    status: 409,
    detail: 'No node accepts new sites.',
    description:
      'Every node is draining or disabled; platform staff must activate one (`PATCH /nodes/{id}`).',
  },
})
