// `/team` (the portal): the team of one of the member's customers. Owners and admins manage it; the API lets only
// them read it (`members:manage`), so others see their own role and whom to ask.

import {
  EmptyState,
  Facts,
  Link,
  managesCustomer,
  PageHeader,
  QuerySelect,
  roleOptions,
  Section,
  useLocation,
  useSession,
} from '../../console/kit.ts'
import { TeamSection } from './team-section.tsx'

function CustomerChooser({ value }: { value: string }) {
  const { me } = useSession()
  const options = me.memberships.map((m) => ({ value: m.customerId, label: m.customerName ?? m.customerId }))
  return (
    <div className="form-inline list-filters">
      <QuerySelect name="customerId" label="Customer" options={options} value={value} />
    </div>
  )
}

export function TeamPage() {
  const session = useSession()
  const { query } = useLocation()
  const memberships = session.me.memberships
  if (session.staff)
    return (
      <>
        <PageHeader title="Team" />
        <EmptyState>
          Staff manage each customer’s team from the customer’s page:{' '}
          <Link to="/customers">go to Customers</Link>.
        </EmptyState>
      </>
    )
  if (memberships.length === 0)
    return (
      <>
        <PageHeader title="Team" />
        <EmptyState>You are not on any customer’s team yet. Ask the customer’s owner to add you.</EmptyState>
      </>
    )
  const wanted = query.get('customerId')
  const membership = memberships.find((m) => m.customerId === wanted) ?? memberships[0]
  if (!membership) return null
  const roleLabel = roleOptions.find((option) => option.value === membership.role)?.label ?? membership.role
  const manages = managesCustomer(session, membership.customerId, 'members:manage')
  return (
    <>
      <PageHeader
        title="Team"
        subtitle="Who may work on this customer, and with which role. Everyone signs in with their own account."
      />
      {memberships.length > 1 ? <CustomerChooser value={membership.customerId} /> : null}
      <Section title="Your place">
        <Facts
          items={[
            ['Customer', membership.customerName ?? membership.customerId],
            ['Your role', roleLabel],
          ]}
        />
      </Section>
      {manages ? (
        <TeamSection customerId={membership.customerId} />
      ) : (
        <p className="notice notice-info">
          Only the customer’s owners and admins see and manage its team. Ask one of them to add someone or
          change a role.
        </p>
      )}
    </>
  )
}
