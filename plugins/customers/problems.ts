// Refusals of the customers plugin.

import { defineProblems } from '../../core/index.ts'

export const customersProblems = defineProblems({
  unknown_user: {
    status: 422,
    detail: 'No user has this e-mail address.',
    description:
      'Members are existing users; staff create users with POST /api/v1/users (or the CLI `user create`).',
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
