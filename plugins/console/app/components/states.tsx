// What a page shows while it loads, when a read or an action fails, and when a list is empty.

import type { ReactNode } from 'react'
import { ApiProblem } from '../api/problem.ts'

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="loading" role="status">
      {label}
    </p>
  )
}

/** A failed read: the API's title and detail, and the request id to quote to support. */
export function ErrorNotice({ error }: { error: unknown }) {
  const problem = error instanceof ApiProblem ? error : null
  return (
    <div className="notice notice-error" role="alert">
      <p>
        <strong>{problem?.title ?? 'Something went wrong'}</strong>
        {problem?.detail
          ? ` ${problem.detail}`
          : problem
            ? ''
            : ` ${String((error as Error)?.message ?? error)}`}
      </p>
      {problem?.requestId ? <p className="muted">Request id: {problem.requestId}</p> : null}
    </div>
  )
}

/**
 * A refusal said in one line beside the control it answers (a row's button, a select): the API's detail, else its
 * title. `id` lets the control point at it with `aria-describedby`.
 */
export function InlineError({ error, id }: { error: unknown; id?: string }) {
  return (
    <p className="field-error" id={id} role="alert">
      {error instanceof ApiProblem ? (error.detail ?? error.title) : String(error)}
    </p>
  )
}

export function EmptyState({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>
}
