// Refusals of the customers plugin.

import { defineProblems } from '../../core/index.ts'

export const customersProblems = defineProblems({
  customer_email_taken: {
    status: 409,
    detail: 'Another customer already uses this contact e-mail.',
    description:
      'Contact e-mails are unique across the installation, so invoices and notices reach one customer.',
  },
})
