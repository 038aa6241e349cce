// Refusals of the sites plugin.

import { defineProblems } from '../../core/index.ts'

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
})
