// What a page shows while it loads, when a read fails, and when a list is empty.

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

export function EmptyState({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>
}
