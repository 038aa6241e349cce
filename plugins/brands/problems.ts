// Refusals of the brands plugin.

import { defineProblems } from '../../core/index.ts'

export const brandsProblems = defineProblems({
  brand_name_taken: {
    status: 409,
    detail: 'Another brand already has this name.',
    description: 'Brand names are unique within the installation.',
  },
})
