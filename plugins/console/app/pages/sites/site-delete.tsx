// Deletes a site: the API answers it `deleting` with the job that removes it; the page follows that job and goes
// back to the list when the site is gone.

import { useQueryClient } from '@tanstack/react-query'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { ConfirmButton } from '../../components/confirm-button.tsx'
import { JobProgress } from '../../components/job-progress.tsx'
import { navigate } from '../../router.tsx'
import { useSession } from '../../session.tsx'
import { ActionError, useSiteAction } from './site-action.tsx'

type Site = Schemas['Site']

export function SiteDelete({ site, onStarted }: { site: Site; onStarted: () => void }) {
  const queries = useQueryClient()
  const session = useSession()
  const remove = useSiteAction(
    () => unwrap(api.DELETE('/api/v1/sites/{id}', { params: { path: { id: site.id } } })),
    (deleting) => {
      queries.setQueryData(['sites', site.id], deleting)
      onStarted()
    },
  )
  const started = remove.isSuccess
  return (
    <>
      {started ? (
        <>
          <p role="status">Deleting {site.name}…</p>
          {site.jobId && session.can('job:read') ? (
            <JobProgress
              key={site.jobId}
              jobId={site.jobId}
              onFinished={(job) => {
                if (job.kind === 'site.delete' && job.status === 'succeeded') {
                  // Gone: its own query is dropped rather than read again (a 404), and the lists refresh.
                  queries.removeQueries({ queryKey: ['sites', site.id] })
                  navigate('/sites')
                }
                // A site deleted while provisioning is deleted by a second job, which the refreshed site names.
                void queries.invalidateQueries({ queryKey: ['sites'] })
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
