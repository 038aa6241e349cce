// "Redeliver": queue a delivery's event again (same body and `webhook-id`, signed afresh). A refusal (the endpoint
// is disabled: 409) shows beside the button.

import { useMutation } from '@tanstack/react-query'
import { ErrorNotice, Link, unwrap } from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

export function RedeliverButton({ delivery }: { delivery: Schemas['WebhookDelivery'] }) {
  const redeliver = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver', {
          params: { path: { id: delivery.webhookId, deliveryId: delivery.id } },
        }),
      ),
  })
  return (
    <div>
      <button
        type="button"
        className="button secondary"
        onClick={() => redeliver.mutate()}
        disabled={redeliver.isPending}
      >
        Redeliver
        <span className="visually-hidden">
          {' '}
          {delivery.eventType} {delivery.id}
        </span>
      </button>
      {redeliver.isError ? <ErrorNotice error={redeliver.error} /> : null}
      {redeliver.data ? (
        <p role="status">
          Queued as{' '}
          <Link
            to={`/webhooks/${encodeURIComponent(delivery.webhookId)}/deliveries/${encodeURIComponent(redeliver.data.id)}`}
          >
            {redeliver.data.id}
          </Link>
          .
        </p>
      ) : null}
    </div>
  )
}
