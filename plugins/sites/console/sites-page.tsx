// `/sites`: the sites the caller sees, filtered by customer (staff, or members of several teams) and state.

import {
  type Column,
  CursorTable,
  CustomerName,
  formatTime,
  Link,
  PageHeader,
  QuerySelect,
  StatusBadge,
  useCustomerOptions,
  useLocation,
  useSession,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { isBusy, siteStatuses } from './site-statuses.ts'

type Site = Schemas['Site']
type Status = Site['status']

export function SitesPage() {
  const session = useSession()
  const { query } = useLocation()
  const customers = useCustomerOptions()
  const customerId = query.get('customerId') ?? undefined
  const statusParam = query.get('status')
  const status = siteStatuses.includes(statusParam as Status) ? (statusParam as Status) : undefined
  const byCustomer = session.staff || session.me.memberships.length > 1
  const filtered = customerId !== undefined || status !== undefined

  const columns: Column<Site>[] = [
    { header: 'Name', cell: (site) => <Link to={`/sites/${encodeURIComponent(site.id)}`}>{site.name}</Link> },
    { header: 'Domain', cell: (site) => site.domain },
    { header: 'Type', cell: (site) => site.type },
    { header: 'Status', cell: (site) => <StatusBadge status={site.status} /> },
    ...(byCustomer
      ? [{ header: 'Customer', cell: (site: Site) => <CustomerName id={site.customerId} /> }]
      : []),
    { header: 'Created', cell: (site) => formatTime(site.createdAt) },
  ]

  return (
    <>
      <PageHeader
        title="Sites"
        subtitle={session.staff ? 'Every site of the customers you look after.' : 'Your websites.'}
        actions={
          session.can('site:create') ? (
            <Link className="button" to={customerId ? `/sites/new?customerId=${customerId}` : '/sites/new'}>
              Create site
            </Link>
          ) : null
        }
      />
      <div className="form-inline list-filters">
        {byCustomer ? (
          <QuerySelect
            name="customerId"
            label="Filter by customer"
            options={[{ value: '', label: 'All customers' }, ...customers.options]}
          />
        ) : null}
        <QuerySelect
          name="status"
          label="Filter by status"
          options={[
            { value: '', label: 'Any status' },
            ...siteStatuses.map((value) => ({ value, label: value })),
          ]}
          value={status ?? ''}
        />
      </div>
      <CursorTable<Site>
        list={api.list('/api/v1/sites', { params: { query: { customerId, status, limit: 50 } } })}
        columns={columns}
        caption="Sites"
        rowKey={(site) => site.id}
        // A site being set up or deleted changes by itself: the list follows it to its next state, no reload.
        refreshMs={(sites) => (sites.some((site) => isBusy(site.status)) ? 3000 : false)}
        empty={
          filtered
            ? 'No site matches these filters. Choose another customer or status.'
            : session.can('site:create')
              ? 'No sites yet. Create the first one with “Create site”.'
              : 'No sites yet.'
        }
      />
    </>
  )
}
