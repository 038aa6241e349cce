// Refusals of the wordpress plugin.

import { defineProblems } from '../../core/index.ts'

export const wordpressProblems = defineProblems({
  weak_admin_password: {
    status: 422,
    detail: 'The WordPress administrator’s password is too weak.',
    description:
      '`wordpress.adminPassword` is 12 to 72 printable ASCII characters, not all of one kind (letters, digits, others). Leave it out and the panel generates one, shown once in the answer.',
  },
})
