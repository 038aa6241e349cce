// The dashboard's flag of overdue backups (staff): how many sites' last good backup is older than their schedule
// allows, with a link to the list. Nothing shows while none is overdue.

import { useQuery } from '@tanstack/react-query'
import { Link } from '../../console/kit.ts'
import { api } from './api.ts'

/** The most overdue sites counted one by one; beyond, the count reads `100+`. */
const counted = 100

export function OverdueBackupsNotice() {
  const overdue = useQuery({
    ...api.query('/api/v1/backups/overdue', { params: { query: { limit: counted } } }),
    refetchInterval: 60_000,
  })
  const items = overdue.data?.items ?? []
  if (items.length === 0) return null
  const count = overdue.data?.nextCursor ? `${items.length}+` : String(items.length)
  return (
    <div className="notice notice-error" data-testid="overdue-backups">
      <p>
        <strong>
          {count} site{items.length === 1 ? '’s' : 's’'} backups overdue
        </strong>
        : no good backup as recent as {items.length === 1 ? 'its' : 'their'} schedule asks.{' '}
        <Link to="/backups/overdue">See which</Link>
      </p>
    </div>
  )
}
