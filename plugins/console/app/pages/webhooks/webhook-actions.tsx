// An endpoint's actions: turn it on or off, replace its signing secret (shown once), delete it with its log.

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { ConfirmButton } from '../../components/confirm-button.tsx'
import { SecretOnce } from '../../components/secret-once.tsx'
import { ErrorNotice } from '../../components/states.tsx'
import { navigate } from '../../router.tsx'

type Webhook = Schemas['Webhook']

export function WebhookActions({ webhook }: { webhook: Webhook }) {
  const queries = useQueryClient()
  const applied = (changed: Webhook) => {
    queries.setQueryData(['webhooks', webhook.id], changed)
    void queries.invalidateQueries({ queryKey: ['webhooks', 'list'] })
    // Disabling fails the pending deliveries: the log changes too.
    void queries.invalidateQueries({ queryKey: ['webhooks', webhook.id, 'deliveries'] })
  }
  const toggle = useMutation({
    mutationFn: () =>
      unwrap(
        api.PATCH('/api/v1/webhooks/{id}', {
          params: { path: { id: webhook.id } },
          body: { enabled: !webhook.enabled },
        }),
      ),
    onSuccess: applied,
  })
  const rotate = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/v1/webhooks/{id}/rotate-secret', { params: { path: { id: webhook.id } } })),
    onSuccess: ({ secret: _secret, ...changed }) => applied(changed),
  })
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id: webhook.id } } })),
    onSuccess: () => {
      queries.removeQueries({ queryKey: ['webhooks', webhook.id] })
      void queries.invalidateQueries({ queryKey: ['webhooks', 'list'] })
      navigate('/webhooks')
    },
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
