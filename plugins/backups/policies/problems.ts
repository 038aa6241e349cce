// Refusals of backup policies: a site's own policy naming a target there is none of.

import { defineProblems } from '../../../core/index.ts'

/** The policies' problem codes, catalogued in docs/problem-codes.md. */
export const policyProblems = defineProblems({
  unknown_backup_target: {
    status: 422,
    detail: 'There is no backup target with that id.',
    description:
      '`targetId` of a site’s backup policy names a target of `GET /backup-targets` (`bkt_…`), or is null for the default target.',
  },
})
