// String formats a plugin declares with the refusal they answer: checked with the rest of the body, before the
// handler runs, so a bad value is one `errors[]` item among the others, with the plugin's own code.

import { FormatRegistry, type StringOptions, type TString, Type as t } from '@sinclair/typebox'
import type { ProblemRef } from './problem-code.ts'

/** A declared format: how a value is checked, and what a value that fails says. */
interface DeclaredFormat {
  readonly check: (value: string) => boolean
  readonly problem: ProblemRef
  /** The `errors[]` message; default the problem's detail. */
  readonly message: string
}

const declared = new Map<string, DeclaredFormat>()

/**
 * Declares a string format (`cron-schedule`) and the problem a value that fails it answers (422, at the field);
 * returns a maker of string schemas in that format. Routes whose body uses it list the problem themselves.
 * @example const Schedule = defineFormat({ name: 'cron-schedule', check: isSchedule, problem: cronProblems.invalid_schedule })
 *          body: t.Object({ schedule: Schedule({ maxLength: 100 }) })
 */
export function defineFormat(format: {
  readonly name: string
  readonly check: (value: string) => boolean
  readonly problem: ProblemRef
  readonly message?: string
}): (options?: StringOptions) => TString {
  const known = declared.get(format.name) ?? (FormatRegistry.Has(format.name) ? null : undefined)
  if (known !== undefined && known?.check !== format.check)
    throw new Error(`The string format "${format.name}" is declared twice`)
  declared.set(format.name, {
    check: format.check,
    problem: format.problem,
    message: format.message ?? format.problem.detail,
  })
  FormatRegistry.Set(format.name, format.check)
  return (options = {}) => t.String({ ...options, format: format.name })
}

/** The problem a declared format answers with, if a plugin declared it: routes using it list it implicitly. */
export function formatProblem(name: unknown): ProblemRef | undefined {
  return typeof name === 'string' ? declared.get(name)?.problem : undefined
}

/** The declared refusal of a format, if a plugin declared it. */
export function formatRefusal(
  name: unknown,
): { readonly code: string; readonly message: string } | undefined {
  const format = typeof name === 'string' ? declared.get(name) : undefined
  return format && { code: format.problem.code, message: format.message }
}
