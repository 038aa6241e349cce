// Collects a handler's field refusals so one 422 reports every faulty field, not just the first.

import { kernelProblems } from './kernel-problems.ts'
import { Problem, type ProblemItem } from './problem.ts'
import type { ProblemRef } from './problem-code.ts'

/** A collector of field refusals: `add` each, then throw `toProblem()`. */
export class FieldErrors {
  private readonly items: ProblemItem[] = []
  private readonly refs: ProblemRef[] = []

  /** Records that the field at `location` is refused for `ref`'s reason. */
  add(ref: ProblemRef, location: string, message: string = ref.detail): void {
    this.items.push({ location, message, code: ref.code })
    this.refs.push(ref)
  }

  /** Whether anything was recorded. */
  hasAny(): boolean {
    return this.items.length > 0
  }

  /**
   * The refusal: one keeps its own code and status; several are a 422 `validation_failed` listing each.
   * Call it only after recording something, typically as `if (!a || !b) throw refusals.toProblem()`.
   */
  toProblem(): Problem {
    const [first] = this.refs
    if (!first) throw new Error('FieldErrors.toProblem() called with nothing recorded')
    if (this.refs.length === 1)
      return new Problem(first, { detail: this.items[0]?.message ?? first.detail, errors: this.items })
    return new Problem(kernelProblems.validation_failed, {
      detail: `The request body has ${this.items.length} invalid fields.`,
      errors: this.items,
    })
  }
}
