// Deletes a record whose removal is a job (a site from its node, a customer with all it owns): asked twice, then the
// page follows the job the API answered (or the one already under way) and leaves once the record is gone.

import type { ReactNode } from 'react'
import { useSession } from '../session.tsx'
import { ActionError, useAction } from './action.tsx'
import { ConfirmButton } from './confirm-button.tsx'
import { JobProgress } from './job-progress.tsx'

/**
 * A Delete button for a record removed by a job of kind `jobKind`: `run` on the second press (it answers the job's
 * id), then the job's progress with `deleting` above it; `onGone` once the job succeeded (drop the record's read and
 * go back to the list). `underWay` is the job of a deletion already started when the page was opened.
 * @example <DeleteByJob label="Delete site" jobKind="site.delete" run={…} deleting="Deleting Shop…" onGone={…}>Removes the site.</DeleteByJob>
 */
export function DeleteByJob({
  label,
  jobKind,
  run,
  underWay = null,
  deleting,
  onStarted,
  onGone,
  children,
}: {
  label: string
  jobKind: string
  run: () => Promise<{ readonly jobId?: string | null }>
  underWay?: string | null
  deleting: ReactNode
  onStarted?: () => void
  onGone: () => void
  children?: ReactNode
}) {
  const session = useSession()
  const remove = useAction(run, () => onStarted?.())
  const jobId = remove.data?.jobId ?? underWay
  if (remove.isSuccess || underWay)
    return (
      <>
        <p role="status">{deleting}</p>
        {jobId && session.can('job:read') ? (
          <JobProgress
            key={jobId}
            jobId={jobId}
            onFinished={(job) => {
              if (job.kind === jobKind && job.status === 'succeeded') onGone()
            }}
          />
        ) : null}
        <ActionError action={remove} />
      </>
    )
  return (
    <>
      {children ? <p className="muted">{children}</p> : null}
      <ConfirmButton
        confirmLabel="Confirm delete"
        disabled={remove.isPending}
        onConfirm={() => remove.mutate(undefined)}
      >
        {label}
      </ConfirmButton>
      <ActionError action={remove} />
    </>
  )
}
