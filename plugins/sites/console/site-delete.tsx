// Deletes a site: the API answers it `deleting` with the job that removes it; the page follows that job and goes
// back to the list when the site is gone.

import { useQueryClient } from '@tanstack/react-query'
import { DeleteByJob, navigate, unwrap } from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

type Site = Schemas['Site']

export function SiteDelete({ site, onStarted }: { site: Site; onStarted: () => void }) {
  const queries = useQueryClient()
  const read = api.query('/api/v1/sites/{id}', { params: { path: { id: site.id } } })
  return (
    <DeleteByJob
      label="Delete site"
      jobKind="site.delete"
      run={() => unwrap(api.DELETE('/api/v1/sites/{id}', { params: { path: { id: site.id } } }))}
      deleting={<>Deleting {site.name}…</>}
      onStarted={onStarted}
      onGone={() => {
        // Gone: its own answer is dropped rather than read again (a 404).
        queries.removeQueries(read)
        navigate('/sites')
      }}
    >
      Removes the site, its files and its configuration from its node. This cannot be undone.
    </DeleteByJob>
  )
}
