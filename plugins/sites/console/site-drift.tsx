// What reconciliation found wrong with a site on its node, on its page: missing there and being put back, put back
// from nothing (its files are to be restored), or not restorable; and, once its files are back, the way to clear it.

import { ExplainedProblem, Link, unwrap, useAction, useSession } from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

type Site = Schemas['Site']

/** What each drift means for the person at the page. */
const headlines: Record<string, string> = {
  missing_on_node: 'Its node did not have this site: it is being set up there again',
  content_lost: 'This site was set up again on its node from nothing: its files are to be restored',
  restore_failed: 'This site is missing on its node and could not be set up there again',
}

export function SiteDrift({ site }: { site: Site }) {
  const session = useSession()
  // `drift: null` alone: openapi-fetch types a body field that only takes null as one to leave out.
  const body = { drift: null } as never
  const clear = useAction(() =>
    unwrap(api.PATCH('/api/v1/sites/{id}', { params: { path: { id: site.id } }, body })),
  )
  if (!site.drift) return null
  const { drift } = site
  const settled = drift.code !== 'missing_on_node'
  return (
    <div
      className={`notice ${drift.code === 'restore_failed' ? 'notice-error' : 'notice-info'}`}
      role="status"
    >
      <p>
        <strong>{headlines[drift.code] ?? 'Its node does not hold this site as recorded'}</strong>:{' '}
        {drift.message} (<code>{drift.code}</code>, found {new Date(drift.detectedAt).toLocaleString()})
      </p>
      {drift.jobId && session.can('job:read') ? (
        <p>
          <Link to={`/jobs/${drift.jobId}`}>See the job that put it back</Link>
        </p>
      ) : null}
      {settled && session.can('site:update') ? (
        <button
          type="button"
          className="button"
          disabled={clear.isPending}
          onClick={() => clear.mutate(undefined)}
        >
          Mark as dealt with
        </button>
      ) : null}
      {clear.error ? <ExplainedProblem error={clear.error} explanations={{}} /> : null}
    </div>
  )
}
