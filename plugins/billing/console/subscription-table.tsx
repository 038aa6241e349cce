// The table of subscriptions both `/subscriptions` and a plan's page show: customer, plan, status and period.

import type { ReactNode } from 'react'
import {
  CursorTable,
  CustomerName,
  formatTime,
  Link,
  StatusBadge,
  useCustomerNames,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { usePlanNames } from './names.ts'

type Subscription = Schemas['Subscription']

/** The list's filters, as `GET /subscriptions` takes them. */
export interface SubscriptionFilters {
  readonly customerId?: string
  readonly planId?: string
  readonly status?: Subscription['status']
}

/** When the subscription ran: from its start to its cancellation, and when its customer's resources go. */
function period(subscription: Subscription): string {
  const from = formatTime(subscription.createdAt)
  if (!subscription.cancelledAt) return `Since ${from}`
  const removal = subscription.removalAt ? `; removal ${formatTime(subscription.removalAt)}` : ''
  return `${from} – ${formatTime(subscription.cancelledAt)}${removal}`
}

export function SubscriptionTable({ filters, empty }: { filters: SubscriptionFilters; empty: ReactNode }) {
  const customerName = useCustomerNames()
  const planName = usePlanNames()
  return (
    <CursorTable<Subscription>
      list={api.list('/api/v1/subscriptions', { params: { query: { ...filters } } })}
      caption="Subscriptions"
      rowKey={(subscription) => subscription.id}
      empty={empty}
      columns={[
        {
          header: 'Plan',
          cell: (subscription) => (
            <Link to={`/subscriptions/${encodeURIComponent(subscription.id)}`}>
              {planName(subscription.planId)}
              <span className="visually-hidden">
                {' '}
                subscription of {customerName(subscription.customerId)}
              </span>
            </Link>
          ),
        },
        { header: 'Customer', cell: (subscription) => <CustomerName id={subscription.customerId} /> },
        {
          header: 'Status',
          cell: (subscription) => (
            <>
              <StatusBadge status={subscription.status} />
              {subscription.suspendedReason ? (
                <span className="muted"> {subscription.suspendedReason}</span>
              ) : null}
            </>
          ),
        },
        { header: 'Period', cell: period },
        { header: 'External id', cell: (subscription) => subscription.externalId ?? '—' },
      ]}
    />
  )
}
