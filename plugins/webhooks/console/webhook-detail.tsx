// `/webhooks/:id`: an endpoint's facts, its actions and change form (for `webhook:manage`), and its delivery log.

import { useQuery } from '@tanstack/react-query'
import {
  Breadcrumbs,
  ErrorNotice,
  Facts,
  formatTime,
  Loading,
  PageHeader,
  Section,
  useSession,
} from '../../console/kit.ts'
import { api } from './api.ts'
import { DeliveryTable } from './delivery-table.tsx'
import { describeEvents } from './use-event-kinds.ts'
import { WebhookActions } from './webhook-actions.tsx'
import { WebhookEditForm } from './webhook-edit-form.tsx'
import { WebhookState } from './webhook-state.tsx'

export function WebhookDetail({ id }: { id: string }) {
  const session = useSession()
  const webhook = useQuery(api.query('/api/v1/webhooks/{id}', { params: { path: { id } } }))
  const breadcrumbs = <Breadcrumbs to="/webhooks" label="Webhooks" here={id} />
  if (webhook.isPending) return <Loading />
  if (webhook.isError)
    return (
      <>
        {breadcrumbs}
        <PageHeader title="Webhook endpoint" />
        <ErrorNotice error={webhook.error} />
      </>
    )
  const current = webhook.data
  return (
    <>
      {breadcrumbs}
      <PageHeader title="Webhook endpoint" subtitle={<span className="webhook-url">{current.url}</span>} />
      <Section title="Details">
        <Facts
          items={[
            ['Id', <code key="id">{current.id}</code>],
            [
              'URL',
              <span key="url" className="webhook-url">
                {current.url}
              </span>,
            ],
            ['Events', describeEvents(current.events)],
            ['State', <WebhookState key="state" webhook={current} />],
            ['Description', current.description ?? '—'],
            ['Brand', current.brandId ?? 'None: every event of the installation'],
            ['Previous secret signs until', formatTime(current.previousSecretExpiresAt)],
            ['Created', formatTime(current.createdAt)],
            ['Updated', formatTime(current.updatedAt)],
          ]}
        />
      </Section>
      {session.can('webhook:manage') ? (
        <>
          <Section title="Actions">
            <WebhookActions webhook={current} />
          </Section>
          <Section title="Edit endpoint">
            <WebhookEditForm webhook={current} />
          </Section>
        </>
      ) : null}
      <Section title="Deliveries">
        <DeliveryTable webhookId={current.id} />
      </Section>
    </>
  )
}
