// `/sites/:id`: a site's facts, why it failed (and its retry), what it uses against its limits, the job working on
// it, and what the caller may do with it (platform staff: its own limits).

import { useEffect, useState } from 'react'
import { ApiProblem, JobProgress, navigate, Section, useSession } from '../../console/kit.ts'
import type { Schemas } from './api.ts'
import { SiteDelete } from './site-delete.tsx'
import { SiteDrift } from './site-drift.tsx'
import { SiteEditForm } from './site-edit-form.tsx'
import { SiteFacts } from './site-facts.tsx'
import { SiteFailure } from './site-failure.tsx'
import { SiteFrame } from './site-frame.tsx'
import { SiteLimitsForm } from './site-limits-form.tsx'
import { SiteResources } from './site-resources.tsx'
import { isBusy, siteIsOnNode } from './site-statuses.ts'
import { SiteSuspension } from './site-suspension.tsx'
import { useSite } from './use-site.ts'

function LatestJob({ site }: { site: Schemas['Site'] }) {
  if (!site.jobId) return null
  return (
    <Section title={isBusy(site.status) ? 'Current job' : 'Latest job'}>
      <JobProgress key={site.jobId} jobId={site.jobId} />
    </Section>
  )
}

export function SitePage({ id }: { id: string }) {
  const session = useSession()
  const site = useSite(id)
  const [deleting, setDeleting] = useState(false)
  // Once the deletion this page started is done, the site reads 404: back to the list.
  useEffect(() => {
    if (deleting && site.error instanceof ApiProblem && site.error.status === 404) navigate('/sites')
  }, [deleting, site.error])
  return (
    <SiteFrame id={id}>
      {(current) => (
        <>
          {deleting ? null : <SiteFailure site={current} />}
          {deleting ? null : <SiteDrift site={current} />}
          <Section title="Details">
            <SiteFacts site={current} />
          </Section>
          {!deleting && current.status === 'active' ? (
            <Section title="Resources">
              <SiteResources siteId={current.id} />
            </Section>
          ) : null}
          {!deleting && session.can('job:read') ? <LatestJob site={current} /> : null}
          {session.can('site:update') && !deleting ? (
            <Section title="Change site">
              <SiteEditForm site={current} />
            </Section>
          ) : null}
          {session.me.kind === 'platform' && session.can('site:update') && !deleting ? (
            <Section title="Limits">
              <SiteLimitsForm site={current} />
            </Section>
          ) : null}
          {session.staff && session.can('site:suspend') && !deleting && siteIsOnNode(current) ? (
            <Section title="Suspension">
              <SiteSuspension site={current} />
            </Section>
          ) : null}
          {session.can('site:delete') ? (
            <Section title="Delete site">
              <SiteDelete site={current} onStarted={() => setDeleting(true)} />
            </Section>
          ) : null}
        </>
      )}
    </SiteFrame>
  )
}
