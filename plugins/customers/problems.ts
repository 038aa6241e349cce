// Refusals of the customers plugin.

import { defineProblems } from '../../core/index.ts'

export const customersProblems = defineProblems({
  customer_email_taken: {
    status: 409,
    detail: 'Another customer already uses this contact e-mail.',
    description:
      'Contact e-mails are unique across the installation, so invoices and notices reach one customer.',
  },
  unknown_user: {
    status: 422,
    detail: 'No user has this e-mail address.',
    description:
      'Members are existing users; staff create users with POST /api/v1/users (or the CLI `user create`).',
  },
  user_is_staff: {
    status: 422,
    detail: 'Staff users cannot be team members.',
    description:
      'Platform and brand staff already see customers through their staff role; teams are for customer users.',
  },
  already_member: {
    status: 409,
    detail: 'This user is already on the customer’s team.',
    description: 'Change the member’s role with PATCH instead.',
  },
  last_owner: {
    status: 409,
    detail: 'A customer must keep at least one owner.',
    description: 'Removing or demoting the last owner is refused; make another member owner first.',
  },
  owner_change_not_allowed: {
    status: 403,
    detail: 'Only owners (and staff) can make, demote or remove owners.',
    description: 'Admins manage the team except owners.',
  },
})
