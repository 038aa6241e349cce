// "Back up now": starts a backup of the site (a job) and follows it live to its end; the list and the last good
// backup's age are read again when it ends (JobProgress does that for every page).

import { useState } from 'react'
import { ActionError, JobProgress, unwrap, useAction, useIdempotencyKey } from '../../console/kit.ts'
import { api } from './api.ts'

export function BackUpNow({ siteId, disabled }: { siteId: string; disabled?: boolean }) {
  const [jobId, setJobId] = useState<string | null>(null)
  const [running, setRunning] = useState(false)
  const idempotency = useIdempotencyKey()
  const start = useAction(
    () =>
      unwrap(
        api.POST('/api/v1/sites/{id}/backups', {
          params: { path: { id: siteId }, header: { 'Idempotency-Key': idempotency.key() } },
        }),
      ).catch((error: unknown) => {
        idempotency.afterFailure(error)
        throw error
      }),
    (accepted) => {
      idempotency.afterSuccess()
      setJobId(accepted.jobId)
      setRunning(true)
    },
  )
  return (
    <div className="back-up-now">
      <button
        type="button"
        className="button"
        disabled={disabled || start.isPending || running}
        onClick={() => start.mutate(undefined)}
      >
        {running ? 'Backing up…' : 'Back up now'}
      </button>
      <ActionError action={start} />
      {jobId ? <JobProgress key={jobId} jobId={jobId} onFinished={() => setRunning(false)} /> : null}
    </div>
  )
}
