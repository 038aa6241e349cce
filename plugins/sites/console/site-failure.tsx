// Why a site's provisioning failed, on its page: the code and the message the site carries, the job that failed
// (its steps and output), and the retry; deleting it is the page's own section. While the job still tries again, the
// same notice says what the last attempt ran into.

import { ExplainedProblem, Link, unwrap, useAction, useSession } from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

type Site = Schemas['Site']

/** What a retry refusal means for the person at the page. */
const explanations = {
  site_node_lacks: 'The site’s node lacks what this type of site needs: install it there, then retry.',
}

export function SiteFailure({ site }: { site: Site }) {
  const session = useSession()
  const retry = useAction(() =>
    unwrap(api.POST('/api/v1/sites/{id}/retry', { params: { path: { id: site.id } } })),
  )
  if (!site.error) return null
  const failed = site.status === 'failed'
  return (
    <div className={`notice ${failed ? 'notice-error' : 'notice-info'}`} role={failed ? 'alert' : 'status'}>
      <p>
        <strong>
          {failed ? 'Setting up this site failed' : 'The last attempt to set up this site failed'}
        </strong>
        {failed ? '' : '; it is tried again shortly'}: {site.error.message} (<code>{site.error.code}</code>)
      </p>
      {site.error.jobId && session.can('job:read') ? (
        <p>
          <Link to={`/jobs/${site.error.jobId}`}>See the job that failed</Link>
        </p>
      ) : null}
      {failed && session.can('site:update') ? (
        <>
          <p className="muted">
            Change what needs changing below (domain, disk quota) or on the node, then set the site up again.
          </p>
          <button
            type="button"
            className="button"
            disabled={retry.isPending}
            onClick={() => retry.mutate(undefined)}
          >
            Retry setup
          </button>
        </>
      ) : null}
      {retry.error ? <ExplainedProblem error={retry.error} explanations={explanations} /> : null}
    </div>
  )
}
