// `/audit`: every change within the caller's view, newest first, with its filters in the query string. Actors,
// actions and subjects are links to the log filtered by them.

import { api, type Schemas } from '../../api/client.ts'
import { CursorTable } from '../../components/cursor-table.tsx'
import { useCustomerNames } from '../../components/customer-name.tsx'
import { formatTime } from '../../components/format.ts'
import { PageHeader } from '../../components/page.tsx'
import { Link, useLocation } from '../../router.tsx'
import { useSession } from '../../session.tsx'
import { AuditFilters, auditFilterNames } from './audit-filters.tsx'
import { filtersOf } from './filters.ts'
import { useUserNames } from './use-user-names.ts'

type Entry = Schemas['AuditEntry']

/** The log filtered by one more value (the others kept). */
function filteredBy(query: URLSearchParams, name: string, value: string): string {
  const next = new URLSearchParams(query)
  next.set(name, value)
  return `/audit?${next.toString()}`
}

function Actor({ entry, query }: { entry: Entry; query: URLSearchParams }) {
  const userName = useUserNames()
  const { userId, tokenId } = entry.actor
  if (!userId && !tokenId) return <span className="muted">System</span>
  return (
    <>
      {userId ? <Link to={filteredBy(query, 'actor', userId)}>{userName(userId)}</Link> : null}
      {tokenId ? (
        <>
          {userId ? ' with token ' : 'Token '}
          <Link to={filteredBy(query, 'actor', tokenId)}>
            <code>{tokenId}</code>
          </Link>
        </>
      ) : null}
    </>
  )
}

function Details({ details }: { details: Entry['details'] }) {
  if (Object.keys(details).length === 0) return <span className="muted">—</span>
  return (
    <details>
      <summary>Show details</summary>
      <pre className="audit-details">{JSON.stringify(details, null, 2)}</pre>
    </details>
  )
}

export function AuditLog() {
  const session = useSession()
  const { query } = useLocation()
  const filters = filtersOf(query, auditFilterNames)
  const customerName = useCustomerNames()
  const filtered = Object.keys(filters).length > 0
  return (
    <>
      <PageHeader
        title="Audit log"
        subtitle={
          session.staff
            ? 'Every change within your view: who did it, to what, and from which request.'
            : 'Every change to your teams: who did it, to what, and from which request.'
        }
      />
      <AuditFilters key={query.toString()} filters={filters} />
      <div className="activity-table">
        <CursorTable<Entry>
          list={api.list('/api/v1/audit', { params: { query: filters } })}
          caption="Audit log"
          rowKey={(entry) => entry.id}
          empty={filtered ? 'No entry matches these filters.' : 'Nothing has changed yet.'}
          columns={[
            {
              header: 'Time',
              cell: (entry) => <time dateTime={entry.occurredAt}>{formatTime(entry.occurredAt)}</time>,
            },
            { header: 'Actor', cell: (entry) => <Actor entry={entry} query={query} /> },
            {
              header: 'Action',
              cell: (entry) => (
                <Link to={filteredBy(query, 'action', entry.action)}>
                  <code className="nowrap">{entry.action}</code>
                </Link>
              ),
            },
            {
              header: 'Subject',
              cell: (entry) => (
                <>
                  {entry.subject.type}{' '}
                  <Link to={filteredBy(query, 'subject', entry.subject.id)}>
                    <code>{entry.subject.id}</code>
                  </Link>
                </>
              ),
            },
            {
              header: 'Customer',
              cell: (entry) => (entry.customerId ? customerName(entry.customerId) : '—'),
            },
            {
              header: 'Request id',
              cell: (entry) => (entry.requestId ? <code>{entry.requestId}</code> : '—'),
            },
            { header: 'Details', cell: (entry) => <Details details={entry.details} /> },
          ]}
        />
      </div>
    </>
  )
}
