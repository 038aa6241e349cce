// An endpoint's signing secrets over rotations: the current one, and those replaced within the last 24 hours, which
// keep signing beside it so a receiver still on an older secret accepts every message while it switches over.

import type { PluginContext } from '../../core/index.ts'
import type { WebhookEndpointsTable } from './migrations.ts'

/** How long a replaced secret keeps signing beside its successor. */
export const rotationOverlapMs = 24 * 3_600_000

/** Most replaced secrets kept signing at once: rotating more often than this a day drops the oldest. */
export const maxRetiredSecrets = 5

/** A replaced secret, sealed, and when it stops signing. */
interface RetiredSecret {
  readonly sealed: string
  readonly expiresAt: string
}

/** The endpoint's replaced secrets still signing at `now`. */
function retiredSecrets(row: Pick<WebhookEndpointsTable, 'retired_secrets'>, now: Date): RetiredSecret[] {
  const at = now.toISOString()
  return (JSON.parse(row.retired_secrets) as RetiredSecret[]).filter((secret) => secret.expiresAt > at)
}

/**
 * The columns after replacing the current secret with `sealedNew`: the current one joins the replaced ones for 24
 * hours. Every secret current within the last day keeps signing, so a second rotation whose answer was lost does not
 * cut off the receiver that still uses the first secret.
 */
export function rotatedSecrets(
  row: Pick<WebhookEndpointsTable, 'secret_sealed' | 'retired_secrets'>,
  sealedNew: string,
  now: Date,
): Pick<WebhookEndpointsTable, 'secret_sealed' | 'retired_secrets'> {
  const retired = [
    { sealed: row.secret_sealed, expiresAt: new Date(now.getTime() + rotationOverlapMs).toISOString() },
    ...retiredSecrets(row, now),
  ].slice(0, maxRetiredSecrets)
  return { secret_sealed: sealedNew, retired_secrets: JSON.stringify(retired) }
}

/** The secrets that sign at `now`, opened: the current one first, then the replaced ones still within their day. */
export function signingSecrets(
  row: Pick<WebhookEndpointsTable, 'secret_sealed' | 'retired_secrets'>,
  box: PluginContext['secrets'],
  now: Date,
): string[] {
  return [box.open(row.secret_sealed), ...retiredSecrets(row, now).map((secret) => box.open(secret.sealed))]
}

/** Until when a replaced secret still signs (the latest expiry), or null when only the current one signs. */
export function retiredSecretsExpireAt(
  row: Pick<WebhookEndpointsTable, 'retired_secrets'>,
  now: Date,
): string | null {
  const expiries = retiredSecrets(row, now).map((secret) => secret.expiresAt)
  return expiries.length === 0 ? null : expiries.reduce((latest, at) => (at > latest ? at : latest))
}
