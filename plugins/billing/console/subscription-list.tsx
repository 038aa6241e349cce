// `/subscriptions`: who subscribes to what. Staff filter by customer and status; members see their teams' own,
// and those who may pay subscribe through checkout.

import {
  FilterForm,
  Link,
  PageHeader,
  useCustomerOptions,
  useLocation,
  useSession,
} from '../../console/kit.ts'
import type { Schemas } from './api.ts'
import { type SubscriptionFilters, SubscriptionTable } from './subscription-table.tsx'

const statusOptions = [
  { value: '', label: 'Any status' },
  { value: 'active', label: 'Active' },
  { value: 'past_due', label: 'Past due' },
  { value: 'suspended', label: 'Suspended' },
  { value: 'cancelled', label: 'Cancelled' },
]

/** Staff filter by customer and status; members by status (their teams are few). */
function Filters({ filters }: { filters: SubscriptionFilters }) {
  const { staff } = useSession()
  const customers = useCustomerOptions()
  const customer = {
    name: 'customerId',
    label: 'Customer',
    options: [{ value: '', label: 'Every customer' }, ...customers.options],
    value: filters.customerId ?? '',
  }
  const status = { name: 'status', label: 'Status', options: statusOptions, value: filters.status ?? '' }
  return <FilterForm filters={staff ? [customer, status] : [status]} />
}

export function SubscriptionList() {
  const session = useSession()
  const { query } = useLocation()
  const filters: SubscriptionFilters = {
    ...(query.get('customerId') ? { customerId: query.get('customerId') as string } : {}),
    ...(query.get('status') ? { status: query.get('status') as Schemas['Subscription']['status'] } : {}),
  }
  const canManage = session.can('billing:manage')
  const action = !canManage ? null : session.staff ? (
    <Link to="/subscriptions/new" className="button">
      New subscription
    </Link>
  ) : (
    <Link to="/subscriptions/checkout" className="button">
      Subscribe to a plan
    </Link>
  )
  return (
    <>
      <PageHeader
        title="Subscriptions"
        subtitle={
          session.staff
            ? 'Which customer holds which plan, and whether it is paid up.'
            : 'Your plans: what they allow and whether they are in good standing.'
        }
        actions={action}
      />
      <Filters filters={filters} />
      <SubscriptionTable
        filters={filters}
        empty={
          session.staff
            ? 'No subscriptions match. Subscribe a customer with “New subscription”.'
            : canManage
              ? 'No subscriptions yet. Choose a plan with “Subscribe to a plan”.'
              : 'No subscriptions yet. Your team’s owner or billing contact can subscribe to a plan.'
        }
      />
    </>
  )
}
