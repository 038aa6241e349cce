// One attempt of one delivery: check the endpoint's URL again, sign, POST to the checked address, and record the
// outcome (success, a retry by the schedule, failure for good, or the endpoint disabled by a 410).

import type { AuditInput, Db, SecretBox, Trx } from '../../core/index.ts'
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from './migrations.ts'
import type { WebhookSettings } from './options.ts'
import {
  failPendingDeliveries,
  findEndpointRow,
  finishAttempt,
  releaseClaim,
  updateEndpoint,
} from './repository.ts'
import { retryDelayMs } from './retry.ts'
import { signedHeaders } from './signing.ts'
import { type PostOutcome, postPinned } from './transport.ts'
import { checkWebhookUrl } from './url-guard.ts'

/** What an attempt needs from the plugin. */
export interface DeliveryDeps {
  readonly db: Db
  transaction<T>(work: (trx: Trx) => Promise<T>): Promise<T>
  readonly settings: WebhookSettings
  readonly secrets: SecretBox
  /** Audits changes the panel makes on its own (disabling an endpoint). */
  audit(trx: Trx, entry: AuditInput): Promise<void>
}

/** The `User-Agent` of every delivery. */
export const userAgent = 'Plinth-Webhooks/1.0'

/** The secrets that sign now: the current one, and the previous one while a rotation's overlap lasts. */
export function signingSecrets(endpoint: WebhookEndpointsTable, box: SecretBox, now: Date): string[] {
  const current = box.open(endpoint.secret_sealed)
  const overlapping =
    endpoint.previous_secret_sealed !== null &&
    endpoint.previous_secret_expires_at !== null &&
    endpoint.previous_secret_expires_at > now.toISOString()
  return overlapping && endpoint.previous_secret_sealed
    ? [current, box.open(endpoint.previous_secret_sealed)]
    : [current]
}

/** Why an answer is not a success, in words for the delivery log. */
function answerError(status: number): string {
  if (status >= 300 && status < 400) return `the endpoint answered ${status}; redirects are not followed`
  return `the endpoint answered ${status}`
}

/**
 * Makes one attempt of `row`, which `owner` has claimed. A shutdown (`signal`) leaves the delivery pending and
 * releases the claim, so the next start sends it again (at least once).
 */
export async function deliverOnce(
  deps: DeliveryDeps,
  row: WebhookDeliveriesTable,
  owner: string,
  signal: AbortSignal,
): Promise<void> {
  const endpoint = await findEndpointRow(deps.db, row.endpoint_id)
  if (endpoint?.enabled !== 1) {
    await finishAttempt(deps.db, row.id, owner, {
      status: 'failed',
      next_attempt_at: null,
      last_error: 'the endpoint is disabled',
    })
    return
  }
  const attemptAt = new Date()
  const check = await checkWebhookUrl(endpoint.url, deps.settings.policy)
  let outcome: PostOutcome
  if (!check.ok) {
    // DNS may have changed since the URL was saved (rebinding): nothing is sent, and the attempt counts.
    outcome = {
      kind: 'failed',
      reason: 'network',
      message: `${check.refusal.code}: ${check.refusal.message}`,
      durationMs: 0,
    }
  } else {
    const timestamp = Math.floor(attemptAt.getTime() / 1000)
    outcome = await postPinned({
      target: check.target,
      headers: {
        ...signedHeaders(
          signingSecrets(endpoint, deps.secrets, attemptAt),
          row.event_id,
          timestamp,
          row.payload,
        ),
        'content-type': 'application/json',
        'user-agent': userAgent,
      },
      body: row.payload,
      timeoutMs: deps.settings.timeoutMs,
      signal,
      ...(deps.settings.ca ? { ca: deps.settings.ca } : {}),
    })
  }
  if (outcome.kind === 'failed' && outcome.reason === 'aborted') {
    await releaseClaim(deps.db, row.id, owner)
    return
  }
  await record(deps, row, owner, endpoint, attemptAt, outcome)
}

/** Records how the attempt ended, in one transaction; nothing when the claim was lost meanwhile. */
async function record(
  deps: DeliveryDeps,
  row: WebhookDeliveriesTable,
  owner: string,
  endpoint: WebhookEndpointsTable,
  attemptAt: Date,
  outcome: PostOutcome,
): Promise<void> {
  const attempts = row.attempts + 1
  const common = {
    attempts,
    last_attempt_at: attemptAt.toISOString(),
    last_status_code: outcome.kind === 'answered' ? outcome.status : null,
    last_response_ms: outcome.durationMs,
  }
  await deps.transaction(async (trx) => {
    if (outcome.kind === 'answered' && outcome.status >= 200 && outcome.status < 300) {
      await finishAttempt(trx, row.id, owner, {
        ...common,
        status: 'succeeded',
        next_attempt_at: null,
        last_error: null,
      })
      return
    }
    if (outcome.kind === 'answered' && outcome.status === 410) {
      const reason = `the endpoint answered 410 Gone on ${attemptAt.toISOString()}`
      const finished = await finishAttempt(trx, row.id, owner, {
        ...common,
        status: 'failed',
        next_attempt_at: null,
        last_error: 'the endpoint answered 410 Gone: it was disabled',
      })
      if (!finished || endpoint.enabled !== 1) return
      await updateEndpoint(trx, endpoint.id, {
        enabled: 0,
        disabled_reason: reason,
        updated_at: new Date().toISOString(),
      })
      await failPendingDeliveries(trx, endpoint.id, 'the endpoint answered 410 Gone: it was disabled')
      await deps.audit(trx, {
        action: 'webhook.disable',
        subject: { type: 'webhook', id: endpoint.id },
        customerId: null,
        details: { reason, deliveryId: row.id },
      })
      return
    }
    const error = outcome.kind === 'answered' ? answerError(outcome.status) : outcome.message
    const delay = retryDelayMs(deps.settings.retryScheduleMs, attempts)
    await finishAttempt(trx, row.id, owner, {
      ...common,
      status: delay === null ? 'failed' : 'pending',
      next_attempt_at: delay === null ? null : new Date(Date.now() + delay).toISOString(),
      last_error: error,
    })
  })
}
