// Deletes a site: the API answers it `deleting` with the job that removes it; the page follows that job and goes
// back to the list when the site is gone.

import { useQueryClient } from '@tanstack/react-query'
import {
  ActionError,
  ConfirmButton,
  JobProgress,
  navigate,
  unwrap,
  useAction,
  useSession,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

type Site = Schemas['Site']

export function SiteDelete({ site, onStarted }: { site: Site; onStarted: () => void }) {
  const queries = useQueryClient()
  const session = useSession()
  const remove = useAction(
    () => unwrap(api.DELETE('/api/v1/sites/{id}', { params: { path: { id: site.id } } })),
    () => onStarted(),
  )
  const started = remove.isSuccess
  // The deletion's own job, as the DELETE answered it (the page's read of the site may not have caught up).
  const jobId = remove.data?.jobId ?? site.jobId
  return (
    <>
      {started ? (
        <>
          <p role="status">Deleting {site.name}…</p>
          {jobId && session.can('job:read') ? (
            <JobProgress
              key={jobId}
              jobId={jobId}
              onFinished={(job) => {
                // Gone: its own answer is dropped rather than read again (a 404).
                if (job.kind === 'site.delete' && job.status === 'succeeded') {
                  queries.removeQueries(
                    api.query('/api/v1/sites/{id}', { params: { path: { id: site.id } } }),
                  )
                  navigate('/sites')
                }
              }}
            />
          ) : null}
        </>
      ) : (
        <>
          <p className="muted">
            Removes the site, its files and its configuration from its node. This cannot be undone.
          </p>
          <ConfirmButton
            confirmLabel="Confirm delete"
            disabled={remove.isPending}
            onConfirm={() => remove.mutate(undefined)}
          >
            Delete site
          </ConfirmButton>
        </>
      )}
      <ActionError action={remove} />
    </>
  )
}
