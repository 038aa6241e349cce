// `/customers/:id`: a customer's facts, editing them, its team, and the way to what it owns (sites, databases,
// subscriptions), each list narrowed to it by `?customerId=`.

import { useEffect, useState } from 'react'
import {
  ApiProblem,
  Breadcrumbs,
  ErrorNotice,
  Facts,
  formatTime,
  Link,
  Loading,
  managesCustomer,
  navigate,
  PageHeader,
  Section,
  StatusBadge,
  useBrandName,
  useCustomer,
  useSession,
} from '../../console/kit.ts'
import { CustomerDelete } from './customer-delete.tsx'
import { EditCustomer } from './edit-customer.tsx'
import { TeamSection } from './team-section.tsx'

/** The lists of what a customer owns, as the other areas show them filtered to one customer. */
function OwnedResources({ customerId }: { customerId: string }) {
  const session = useSession()
  const query = `?${new URLSearchParams({ customerId })}`
  const links = [
    { label: 'Sites', to: `/sites${query}`, scope: 'site:read' },
    { label: 'Databases', to: `/databases${query}`, scope: 'database:read' },
    { label: 'Database users', to: `/database-users${query}`, scope: 'database:read' },
    { label: 'Certificates', to: `/certificates${query}`, scope: 'certificate:read' },
    { label: 'Subscriptions', to: `/subscriptions${query}`, scope: 'billing:read' },
    { label: 'Jobs', to: `/jobs${query}`, scope: 'job:read' },
  ].filter((link) => session.can(link.scope))
  if (links.length === 0) return null
  return (
    <Section title="What it owns">
      <ul className="customer-links">
        {links.map((link) => (
          <li key={link.to}>
            <Link to={link.to}>{link.label}</Link>
          </li>
        ))}
      </ul>
    </Section>
  )
}

export function CustomerPage({ id }: { id: string }) {
  const session = useSession()
  const customer = useCustomer(id)
  const brandName = useBrandName()
  const [deleting, setDeleting] = useState(false)
  // Once the deletion this page started is done, the customer reads 404: back to the list.
  useEffect(() => {
    if (deleting && customer.error instanceof ApiProblem && customer.error.status === 404)
      navigate('/customers')
  }, [deleting, customer.error])
  if (customer.isPending) return <Loading />
  if (customer.isError)
    return (
      <>
        <PageHeader title="Customer" />
        <ErrorNotice error={customer.error} />
      </>
    )
  const data = customer.data
  const membership = session.me.memberships.find((m) => m.customerId === data.id)
  const closing = deleting || data.status === 'deleting'
  return (
    <>
      {session.staff ? <Breadcrumbs to="/customers" label="Customers" /> : null}
      <PageHeader
        title={data.name}
        subtitle={membership ? `Customer · your role: ${membership.role}` : 'Customer'}
      />
      <Section title="Details">
        <Facts
          items={[
            ['Name', data.name],
            ['E-mail', data.email ?? '—'],
            ['Brand', brandName(data.brandId)],
            ['Status', <StatusBadge key="status" status={data.status} />],
            ['Created', formatTime(data.createdAt)],
            ['Updated', formatTime(data.updatedAt)],
            ['Id', <code key="id">{data.id}</code>],
          ]}
        />
      </Section>
      {managesCustomer(session, data.id, 'customer:manage') && !closing ? (
        <Section title="Edit">
          <EditCustomer customer={data} />
        </Section>
      ) : null}
      {/* A customer being deleted loses its team with it: not shown (nor read again) meanwhile. */}
      {managesCustomer(session, data.id, 'members:manage') && !closing ? (
        <TeamSection customerId={data.id} />
      ) : null}
      <OwnedResources customerId={data.id} />
      {session.staff && session.can('customer:delete') ? (
        <Section title="Delete customer">
          <CustomerDelete customer={data} onStarted={() => setDeleting(true)} />
        </Section>
      ) : null}
    </>
  )
}
