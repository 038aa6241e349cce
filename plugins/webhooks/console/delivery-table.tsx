// An endpoint's delivery log, newest first: each event sent or to be sent, how its latest attempt went, and
// "Redeliver" for those who manage webhooks. Filtered by status in the query string.

import {
  CursorTable,
  FilterForm,
  formatTime,
  Link,
  StatusBadge,
  useLocation,
  useSession,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { RedeliverButton } from './redeliver-button.tsx'

type Delivery = Schemas['WebhookDelivery']
type DeliveryStatus = Delivery['status']

const statusOptions = [
  { value: '', label: 'Any status' },
  { value: 'pending', label: 'Pending' },
  { value: 'succeeded', label: 'Succeeded' },
  { value: 'failed', label: 'Failed' },
]

export function DeliveryTable({ webhookId }: { webhookId: string }) {
  const session = useSession()
  const { query } = useLocation()
  const status = query.get('status') ?? ''
  const deliveryPath = (delivery: Delivery) =>
    `/webhooks/${encodeURIComponent(webhookId)}/deliveries/${encodeURIComponent(delivery.id)}`
  return (
    <>
      <FilterForm filters={[{ name: 'status', label: 'Status', options: statusOptions, value: status }]} />
      <div className="webhook-deliveries">
        <CursorTable<Delivery>
          list={api.list('/api/v1/webhooks/{id}/deliveries', {
            params: {
              path: { id: webhookId },
              query: { ...(status ? { status: status as DeliveryStatus } : {}) },
            },
          })}
          caption="Deliveries"
          rowKey={(delivery) => delivery.id}
          empty={
            status
              ? 'No delivery has this status.'
              : 'Nothing delivered yet: events that happen from now on are sent here.'
          }
          columns={[
            {
              header: 'Event',
              cell: (delivery) => (
                <Link to={deliveryPath(delivery)}>
                  <code>{delivery.eventType}</code>
                  <span className="visually-hidden"> delivery {delivery.id}</span>
                </Link>
              ),
            },
            { header: 'Status', cell: (delivery) => <StatusBadge status={delivery.status} /> },
            { header: 'Attempts', cell: (delivery) => delivery.attempts },
            { header: 'Last status code', cell: (delivery) => delivery.lastStatusCode ?? '—' },
            { header: 'Last error', cell: (delivery) => delivery.lastError ?? '—' },
            {
              header: 'Response time',
              cell: (delivery) =>
                delivery.lastResponseTimeMs === null ? '—' : `${delivery.lastResponseTimeMs} ms`,
            },
            { header: 'Created', cell: (delivery) => formatTime(delivery.createdAt) },
            ...(session.can('webhook:manage')
              ? [{ header: 'Actions', cell: (delivery: Delivery) => <RedeliverButton delivery={delivery} /> }]
              : []),
          ]}
        />
      </div>
    </>
  )
}
