// POST /webhooks/{id}/rotate-secret: a new signing secret, shown once, while the replaced ones keep signing a day.

import { defineRoute, type PluginContext, type RouteDefinition } from '../../../core/index.ts'
import { WebhookWithSecret, webhookScopes } from '../contract.ts'
import { endpoints, toWebhook, updateEndpoint } from '../repository.ts'
import { rotatedSecrets } from '../secrets.ts'
import { generateSecret } from '../signing.ts'

/** The rotation route. */
export function rotateSecretRoutes({ secrets }: PluginContext): RouteDefinition[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/webhooks/:id/rotate-secret',
      operationId: 'rotateWebhookSecret',
      summary: 'Replace a webhook endpoint’s signing secret',
      description:
        'Issues a new secret, shown this once (sent with `Cache-Control: no-store`). Every secret replaced within the last 24 hours keeps signing beside the new one until a day after its replacement (deliveries then carry one signature per secret), so a receiver can switch over without losing a message, even if the answer of a rotation was lost and staff rotated again.',
      scope: webhookScopes.manage,
      staff: true,
      params: { id: 'whk' },
      showsSecret: true,
      responses: {
        200: { description: 'The endpoint, with its new secret (shown once).', schema: WebhookWithSecret },
      },
      change: { action: 'webhook.rotateSecret' },
      prepare: () => generateSecret(),
      async handler({ trx, params, view, prepared: secret }) {
        const row = await endpoints.find(trx, view, params.id)
        const now = new Date()
        const updated = await updateEndpoint(trx, row.id, {
          ...rotatedSecrets(row, secrets.seal(secret), now),
          updated_at: now.toISOString(),
        })
        return { ...toWebhook(updated), secret }
      },
    }),
  ]
}
