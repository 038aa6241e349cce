// `/webhooks`: the endpoints events are POSTed to, what each receives, and whether it is enabled.

import { CursorTable, formatTime, Link, PageHeader, useSession } from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { describeEvents } from './use-event-kinds.ts'
import { WebhookState } from './webhook-state.tsx'

type Webhook = Schemas['Webhook']

export function WebhookList() {
  const session = useSession()
  const canManage = session.can('webhook:manage')
  return (
    <>
      <PageHeader
        title="Webhooks"
        subtitle="Endpoints your systems receive events at, signed per Standard Webhooks."
        actions={
          canManage ? (
            <Link to="/webhooks/new" className="button">
              Add endpoint
            </Link>
          ) : null
        }
      />
      <CursorTable<Webhook>
        list={api.list('/api/v1/webhooks')}
        caption="Webhook endpoints"
        rowKey={(webhook) => webhook.id}
        empty={
          canManage
            ? 'No endpoints yet. Add one with “Add endpoint” to receive events as they happen.'
            : 'No endpoints yet. Staff who manage webhooks can add them.'
        }
        columns={[
          {
            header: 'URL',
            cell: (webhook) => (
              <Link to={`/webhooks/${encodeURIComponent(webhook.id)}`} className="webhook-url">
                {webhook.url}
              </Link>
            ),
          },
          { header: 'Events', cell: (webhook) => describeEvents(webhook.events) },
          { header: 'State', cell: (webhook) => <WebhookState webhook={webhook} /> },
          { header: 'Description', cell: (webhook) => webhook.description ?? '—' },
          { header: 'Created', cell: (webhook) => formatTime(webhook.createdAt) },
        ]}
      />
    </>
  )
}
