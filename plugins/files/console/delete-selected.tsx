// Deleting the selected entries (folders with everything in them), asked twice. The answer lists what was
// deleted and what was already gone; a delete the site's user could do only in part (403 `permission_denied`)
// says what was deleted before it stopped and what was not.

import { type ReactNode, useState } from 'react'
import { type ApiProblem, ConfirmButton, problemOf } from '../../console/kit.ts'
import { api } from './api.ts'
import { FileProblem } from './file-problem.tsx'

interface Outcome {
  readonly removed: readonly string[]
  readonly missing: readonly string[]
  /** Paths the site's user could not delete, each with the node's reason. */
  readonly refused: readonly string[]
  readonly problem: ApiProblem | null
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []

/** `refused` items (`{ path, code, message }`) as lines: the path and why. */
const refusals = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.flatMap((item) => {
        const entry = (item ?? {}) as Record<string, unknown>
        if (typeof entry.path !== 'string') return typeof item === 'string' ? [item] : []
        return [typeof entry.message === 'string' ? `${entry.path}: ${entry.message}` : entry.path]
      })
    : []

function DeleteOutcome({ outcome }: { outcome: Outcome }) {
  return (
    <div className="files-outcome">
      {outcome.problem ? <FileProblem error={outcome.problem} /> : null}
      <PathList label="Deleted" paths={outcome.removed} />
      <PathList label="Already gone" paths={outcome.missing} />
      <PathList label="Not deleted" paths={outcome.refused} />
    </div>
  )
}

function PathList({ label, paths }: { label: string; paths: readonly string[] }) {
  if (paths.length === 0) return null
  return (
    <div>
      <p>
        <strong>{label}</strong> ({paths.length})
      </p>
      <ul className="files-path-list">
        {paths.map((path) => (
          <li key={path}>
            <code>{path}</code>
          </li>
        ))}
      </ul>
    </div>
  )
}

export function DeleteSelected({
  siteId,
  paths,
  onDeleted,
  report,
}: {
  siteId: string
  paths: readonly string[]
  /** The paths now gone (to drop from the selection). */
  onDeleted: (removed: readonly string[]) => void
  /** Shows the outcome where it outlives the selection. */
  report: (outcome: ReactNode) => void
}) {
  const [pending, setPending] = useState(false)
  const [failure, setFailure] = useState<unknown>(null)

  const remove = async () => {
    setPending(true)
    setFailure(null)
    try {
      // Not `unwrap`: a partial refusal's body carries `removed` and `refused`, which the problem alone drops.
      const { data, error, response } = await api.POST('/api/v1/sites/{id}/files/delete', {
        params: { path: { id: siteId } },
        body: { paths: [...paths] },
      })
      if (response.ok && data) {
        report(
          <DeleteOutcome
            outcome={{ removed: data.removed, missing: data.missing, refused: [], problem: null }}
          />,
        )
        onDeleted([...data.removed, ...data.missing])
      } else {
        const body = (error ?? {}) as Record<string, unknown>
        const problem = problemOf(response.status, error, response.headers.get('x-request-id'))
        const removed = strings(body.removed)
        const refused = refusals(body.refused)
        // A refusal that deleted nothing stays beside the button; one that deleted part is a result to report.
        if (removed.length === 0 && refused.length === 0) setFailure(problem)
        else {
          report(<DeleteOutcome outcome={{ removed, missing: [], refused, problem }} />)
          onDeleted(removed)
        }
      }
    } catch (error) {
      setFailure(error)
    } finally {
      setPending(false)
    }
  }

  return (
    <div className="files-action">
      <ConfirmButton
        disabled={pending || paths.length === 0}
        confirmLabel={`Really delete ${paths.length} item${paths.length === 1 ? '' : 's'}?`}
        onConfirm={() => void remove()}
      >
        {pending ? 'Deleting…' : 'Delete selected'}
      </ConfirmButton>
      {failure ? <FileProblem error={failure} /> : null}
    </div>
  )
}
