// Whether an endpoint is enabled, and why the panel disabled it when it did (an answer of 410 Gone).

import { StatusBadge } from '../../console/kit.ts'
import type { Schemas } from './api.ts'

export function WebhookState({ webhook }: { webhook: Schemas['Webhook'] }) {
  return (
    <>
      <StatusBadge status={webhook.enabled ? 'enabled' : 'disabled'} />
      {webhook.disabledReason ? <span className="muted"> {webhook.disabledReason}</span> : null}
    </>
  )
}
