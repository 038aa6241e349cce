// An endpoint's actions: turn it on or off, replace its signing secret (shown once), delete it with its log.

import { useMutation } from '@tanstack/react-query'
import { ConfirmButton, ErrorNotice, navigate, SecretOnce, unwrap } from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

type Webhook = Schemas['Webhook']

export function WebhookActions({ webhook }: { webhook: Webhook }) {
  const toggle = useMutation({
    mutationFn: () =>
      unwrap(
        api.PATCH('/api/v1/webhooks/{id}', {
          params: { path: { id: webhook.id } },
          body: { enabled: !webhook.enabled },
        }),
      ),
  })
  const rotate = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/v1/webhooks/{id}/rotate-secret', { params: { path: { id: webhook.id } } })),
  })
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id: webhook.id } } })),
    onSuccess: () => navigate('/webhooks'),
  })
  const failure = toggle.error ?? rotate.error ?? remove.error
  return (
    <div>
      <div className="webhook-actions">
        <button
          type="button"
          className="button secondary"
          onClick={() => toggle.mutate()}
          disabled={toggle.isPending}
        >
          {webhook.enabled ? 'Disable endpoint' : 'Enable endpoint'}
        </button>
        <button
          type="button"
          className="button secondary"
          onClick={() => rotate.mutate()}
          disabled={rotate.isPending}
        >
          Rotate secret
        </button>
        <ConfirmButton
          confirmLabel="Confirm: delete the endpoint and its log"
          onConfirm={() => remove.mutate()}
          disabled={remove.isPending}
        >
          Delete endpoint
        </ConfirmButton>
      </div>
      <p className="hint">
        Disabling fails the pending deliveries. After a rotation the previous secret keeps signing beside the
        new one for a day, so the receiver can switch over.
      </p>
      {failure ? <ErrorNotice error={failure} /> : null}
      {rotate.data ? <SecretOnce label="Signing secret" value={rotate.data.secret} /> : null}
    </div>
  )
}
