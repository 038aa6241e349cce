// POST /webhooks/{id}/rotate-secret: a new signing secret, shown once, while the replaced ones keep signing a day.

import { defineRoute, type PluginContext, type RouteDefinition } from '../../../core/index.ts'
import { WebhookWithSecret, webhookScopes } from '../contract.ts'
import { findVisibleEndpoint, toWebhook, updateEndpoint } from '../repository.ts'
import { rotatedSecrets } from '../secrets.ts'
import { generateSecret } from '../signing.ts'

/** The rotation route. */
export function rotateSecretRoutes(context: PluginContext): RouteDefinition[] {
  const { transaction, secrets } = context
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
      async handler({ params, view, audit }) {
        const secret = generateSecret()
        const endpoint = await transaction(async (trx) => {
          const row = await findVisibleEndpoint(trx, view, params.id)
          const now = new Date()
          const updated = await updateEndpoint(trx, row.id, {
            ...rotatedSecrets(row, secrets.seal(secret), now),
            updated_at: now.toISOString(),
          })
          await audit(trx, {
            action: 'webhook.rotateSecret',
            subject: { type: 'webhook', id: row.id },
            customerId: null,
            brandId: row.brand_id,
          })
          return toWebhook(updated)
        })
        return { ...endpoint, secret }
      },
    }),
  ]
}
