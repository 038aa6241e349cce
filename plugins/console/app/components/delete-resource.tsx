// Deletes a record that other records may still keep (a brand, a plan, a node, a database server, a user): asked
// twice, and when the API refuses it with 409 the page says why and lists what still depends on it, from the
// problem's `blockers`, so staff know what to move or delete first.

import { useMutation } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { ApiProblem } from '../api/problem.ts'
import { ConfirmButton } from './confirm-button.tsx'
import { ErrorNotice } from './states.tsx'

/** One dependent that keeps a record, as a `<noun>_in_use` refusal names it. */
interface Blocker {
  readonly name: string
  readonly count: number
}

/** The `blockers` of a refusal, when it has them. */
function blockersOf(error: unknown): Blocker[] {
  if (!(error instanceof ApiProblem)) return []
  const given = error.extensions.blockers
  if (!Array.isArray(given)) return []
  return given.flatMap((item) => {
    const entry = item as Record<string, unknown>
    return typeof entry.name === 'string' && typeof entry.count === 'number'
      ? [{ name: entry.name, count: entry.count }]
      : []
  })
}

/**
 * A Delete button for one record: `run` on the second press, then `onDeleted` (go back to the list). `children`
 * says what deleting it does; `label` names the button (`Delete brand`).
 * @example <DeleteResource label="Delete plan" run={() => unwrap(api.DELETE(...))} onDeleted={() => navigate('/plans')}>Removes the plan.</DeleteResource>
 */
export function DeleteResource({
  label,
  run,
  onDeleted,
  children,
}: {
  label: string
  run: () => Promise<unknown>
  onDeleted: () => void
  children?: ReactNode
}) {
  const action = useMutation({ mutationFn: run, onSuccess: onDeleted })
  const blockers = blockersOf(action.error)
  return (
    <div className="delete-resource">
      {children ? <p className="muted">{children}</p> : null}
      <ConfirmButton
        confirmLabel="Confirm delete"
        disabled={action.isPending}
        onConfirm={() => action.mutate()}
      >
        {label}
      </ConfirmButton>
      {action.error ? <ErrorNotice error={action.error} /> : null}
      {blockers.length > 0 ? (
        <ul aria-label="Still depends on it">
          {blockers.map((blocker) => (
            <li key={blocker.name}>
              {blocker.name}: {blocker.count}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}
