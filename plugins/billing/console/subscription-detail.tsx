// `/subscriptions/:id`: a subscription's facts, the staff's changes, and cancelling (for whoever holds
// `billing:manage`, customers included).

import { useMutation, useQuery } from '@tanstack/react-query'
import {
  Breadcrumbs,
  ConfirmButton,
  CustomerName,
  ErrorNotice,
  Facts,
  formatTime,
  Link,
  Loading,
  PageHeader,
  Section,
  StatusBadge,
  unwrap,
  useCustomerNames,
  useSession,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { usePlanNames } from './names.ts'
import { SubscriptionStaffActions } from './subscription-staff-actions.tsx'

type Subscription = Schemas['Subscription']

function CancelSection({ subscription }: { subscription: Subscription }) {
  const cancel = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/v1/subscriptions/{id}/cancel', { params: { path: { id: subscription.id } } })),
  })
  return (
    <Section title="Cancel">
      <p>
        Cancelling is final. Unless the customer holds another live subscription, its sites are suspended at
        once and removed after the grace period, unless it subscribes again before then.
      </p>
      <ConfirmButton
        confirmLabel="Confirm cancellation"
        onConfirm={() => cancel.mutate()}
        disabled={cancel.isPending}
      >
        Cancel subscription
      </ConfirmButton>
      {cancel.isError ? <ErrorNotice error={cancel.error} /> : null}
    </Section>
  )
}

export function SubscriptionDetail({ id }: { id: string }) {
  const session = useSession()
  const customerName = useCustomerNames()
  const planName = usePlanNames()
  const subscription = useQuery(api.query('/api/v1/subscriptions/{id}', { params: { path: { id } } }))
  const breadcrumbs = <Breadcrumbs to="/subscriptions" label="Subscriptions" here={id} />
  if (subscription.isPending) return <Loading />
  if (subscription.isError)
    return (
      <>
        {breadcrumbs}
        <PageHeader title="Subscription" />
        <ErrorNotice error={subscription.error} />
      </>
    )
  const current = subscription.data
  const planLabel = planName(current.planId)
  return (
    <>
      {breadcrumbs}
      <PageHeader
        title={`Subscription to ${planLabel}`}
        subtitle={`${customerName(current.customerId)} · ${current.id}`}
      />
      <Section title="Details">
        <Facts
          items={[
            ['Status', <StatusBadge key="status" status={current.status} />],
            ['Customer', <CustomerName key="customer" id={current.customerId} />],
            [
              'Plan',
              session.staff && session.can('plan:read') ? (
                <Link key="plan" to={`/plans/${encodeURIComponent(current.planId)}`}>
                  {planLabel}
                </Link>
              ) : (
                planLabel
              ),
            ],
            ['Started', formatTime(current.createdAt)],
            ['External id', current.externalId ?? '—'],
            ['Suspended', current.suspendedAt ? formatTime(current.suspendedAt) : '—'],
            ['Suspension reason', current.suspendedReason ?? '—'],
            ['Cancelled', formatTime(current.cancelledAt)],
            ['Resources removed', formatTime(current.removalAt)],
            ['Updated', formatTime(current.updatedAt)],
          ]}
        />
      </Section>
      {session.staff && session.can('billing:manage') && current.status !== 'cancelled' ? (
        <Section title="Manage">
          <SubscriptionStaffActions subscription={current} />
        </Section>
      ) : null}
      {session.can('billing:manage') && current.status !== 'cancelled' ? (
        <CancelSection subscription={current} />
      ) : null}
      {!session.staff && session.can('billing:manage') && current.status === 'cancelled' ? (
        <Section title="Subscribe again">
          <p>
            {current.removalAt
              ? `Subscribing again before ${formatTime(current.removalAt)} restores the sites the cancellation suspended.`
              : 'The team can subscribe to a plan again.'}
          </p>
          <Link
            to={`/subscriptions/checkout?customerId=${encodeURIComponent(current.customerId)}`}
            className="button"
          >
            Choose a plan
          </Link>
        </Section>
      ) : null}
    </>
  )
}
