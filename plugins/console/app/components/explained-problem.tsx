// A refusal with what it means for the user when the reason is not the request but the state of something else
// (the site's node is down, the site is not running): the API's own title and detail stay, with the request id to
// quote to support, and a line of the page's own beneath. Each area gives the codes it explains.

import { ApiProblem } from '../api/problem.ts'
import { ErrorNotice } from './states.tsx'

/** What to tell the user beyond the API's words, by problem code. */
export type Explanations = Readonly<Record<string, string>>

/** The explanation of `error` in `explanations`, if it is a refusal with one of their codes. */
export function explanationFrom(error: unknown, explanations: Explanations): string | null {
  return error instanceof ApiProblem ? (explanations[error.code] ?? null) : null
}

/** A failed read or action, explained when `explanations` know its code. */
export function ExplainedProblem({ error, explanations }: { error: unknown; explanations: Explanations }) {
  const explanation = explanationFrom(error, explanations)
  return (
    <div className="explained-problem">
      <ErrorNotice error={error} />
      {explanation ? <p className="problem-hint">{explanation}</p> : null}
    </div>
  )
}
