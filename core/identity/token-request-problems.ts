// Why a token request is refused, field by field: items of a 422 `validation_failed`, each its own code.

import { defineProblems } from '../problem/problem-code.ts'

/** Codes of `errors[]` items when a token request is refused (the API and the CLI alike). */
export const tokenRequestProblems = defineProblems({
  unknown_scope: {
    status: 422,
    detail: 'A requested scope is not declared by any plugin of this installation.',
    description: 'An item of a refused token request: the scope at this index does not exist here.',
  },
  scope_not_held: {
    status: 422,
    detail: 'A requested scope is one the creator does not hold; a token never grants more than its creator.',
    description:
      'An item of a refused token request: the creator does not hold this scope (on the customer the token is limited to).',
  },
  expiry_in_past: {
    status: 422,
    detail: 'The requested expiry is not in the future.',
    description: 'An item of a refused token request: `expiresAt` has passed.',
  },
  lifetime_too_long: {
    status: 422,
    detail: 'The requested expiry is further away than the longest lifetime (one year by default).',
    description:
      'An item of a refused token request: `expiresAt` is past the installation’s longest lifetime.',
  },
})
