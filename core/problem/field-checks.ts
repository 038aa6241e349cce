// Checks schemas cannot express, answered in the same 422 shape as schema failures.

import { kernelProblems } from './kernel-problems.ts'
import { Problem } from './problem.ts'

/** `value` trimmed; a 422 `too_short` at `location` when nothing but spaces is left. */
export function nonBlank(value: string, location: string): string {
  const trimmed = value.trim()
  if (trimmed.length === 0) {
    throw new Problem(kernelProblems.validation_failed, {
      detail: 'The request body has 1 invalid field.',
      errors: [{ location, message: 'must not be blank', code: 'too_short' }],
    })
  }
  return trimmed
}
