// The dashboard's flag of failed sites: how many of the caller's sites gave up being set up, with a link to them (each
// site's page says why, and offers retry and delete). Nothing shows while none failed.

import { useQuery } from '@tanstack/react-query'
import { Link } from '../../console/kit.ts'
import { api } from './api.ts'

/** The most failed sites counted one by one; beyond, the count reads `100+`. */
const counted = 100

export function FailedSitesNotice() {
  const failed = useQuery({
    ...api.query('/api/v1/sites', { params: { query: { status: 'failed', limit: counted } } }),
    // A site fails by itself, minutes after it was created: read again while the dashboard is open.
    refetchInterval: 30_000,
  })
  const items = failed.data?.items ?? []
  if (items.length === 0) return null
  const count = failed.data?.nextCursor ? `${items.length}+` : String(items.length)
  return (
    <div className="notice notice-error" data-testid="failed-sites">
      <p>
        <strong>
          {count} failed site{items.length === 1 ? '' : 's'}
        </strong>
        : setting {items.length === 1 ? 'it' : 'them'} up gave up.{' '}
        <Link to="/sites?status=failed">See why, then retry or delete</Link>
      </p>
    </div>
  )
}
