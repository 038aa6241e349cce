// `/webhooks/:id/deliveries/:deliveryId`: one delivery of an event, every fact of its latest attempt, and
// "Redeliver".

import { useQuery } from '@tanstack/react-query'
import {
  ErrorNotice,
  Facts,
  formatTime,
  Link,
  Loading,
  PageHeader,
  Section,
  StatusBadge,
  useSession,
} from '../../console/kit.ts'
import { api } from './api.ts'
import { RedeliverButton } from './redeliver-button.tsx'

export function DeliveryDetail({ id, deliveryId }: { id: string; deliveryId: string }) {
  const session = useSession()
  const delivery = useQuery({
    ...api.query('/api/v1/webhooks/{id}/deliveries/{deliveryId}', { params: { path: { id, deliveryId } } }),
    // A pending delivery changes by itself; follow it until it settles.
    refetchInterval: (query) => (query.state.data?.status === 'pending' ? 5000 : false),
  })
  const webhookPath = `/webhooks/${encodeURIComponent(id)}`
  const breadcrumbs = (
    <nav className="breadcrumbs" aria-label="Breadcrumbs">
      <Link to="/webhooks">Webhooks</Link> <span aria-hidden="true">›</span>{' '}
      <Link to={webhookPath}>{id}</Link> <span aria-hidden="true">›</span> <span>{deliveryId}</span>
    </nav>
  )
  if (delivery.isPending) return <Loading />
  if (delivery.isError)
    return (
      <>
        {breadcrumbs}
        <PageHeader title="Delivery" />
        <ErrorNotice error={delivery.error} />
      </>
    )
  const current = delivery.data
  return (
    <>
      {breadcrumbs}
      <PageHeader title={`Delivery of ${current.eventType}`} subtitle={current.id} />
      <Section title="Details">
        <Facts
          items={[
            ['Status', <StatusBadge key="status" status={current.status} />],
            ['Event', <code key="event">{current.eventType}</code>],
            ['Event id (webhook-id)', <code key="eventId">{current.eventId}</code>],
            ['Attempts', current.attempts],
            ['Next attempt', formatTime(current.nextAttemptAt)],
            ['Last attempt', formatTime(current.lastAttemptAt)],
            ['Last status code', current.lastStatusCode ?? '—'],
            ['Last error', current.lastError ?? '—'],
            ['Response time', current.lastResponseTimeMs === null ? '—' : `${current.lastResponseTimeMs} ms`],
            [
              'Redelivery of',
              current.redeliveryOf ? (
                <Link
                  key="original"
                  to={`${webhookPath}/deliveries/${encodeURIComponent(current.redeliveryOf)}`}
                >
                  {current.redeliveryOf}
                </Link>
              ) : (
                '—'
              ),
            ],
            ['Created', formatTime(current.createdAt)],
            ['Updated', formatTime(current.updatedAt)],
          ]}
        />
      </Section>
      {session.can('webhook:manage') ? (
        <Section title="Send again">
          <p>
            A redelivery sends the same body with the same webhook-id, signed afresh, to the endpoint’s URL.
          </p>
          <RedeliverButton delivery={current} />
        </Section>
      ) : null}
    </>
  )
}
