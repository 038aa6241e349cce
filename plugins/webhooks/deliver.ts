// One attempt of one delivery: check the endpoint's URL again, sign, POST to the checked address, and record the
// outcome (success, a retry by the schedule, failure for good, or the endpoint disabled by a 410).

import type { AuditInput, Db, PluginContext, Store, Trx } from '../../core/index.ts'
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from './migrations.ts'
import type { AttemptOutcome, DeliveryObserver } from './observability.ts'
import type { WebhookSettings } from './options.ts'
import {
  disableGoneEndpoint,
  failPendingDeliveries,
  findEndpointRow,
  finishAttempt,
  releaseClaim,
} from './repository.ts'
import { retryDelayMs } from './retry.ts'
import { signingSecrets } from './secrets.ts'
import { signedHeaders } from './signing.ts'
import { type PostOutcome, postPinned } from './transport.ts'
import { checkWebhookUrl } from './url-guard.ts'
import { deliveriesQueued } from './wake-ups.ts'

/** What an attempt needs from the plugin. */
export interface DeliveryDeps {
  /** The store: claims and records of attempts (read committed), wake-ups (`notify`, `listen`). */
  readonly store: Store
  readonly db: Db
  readonly settings: WebhookSettings
  readonly secrets: PluginContext['secrets']
  /** Audits changes the panel makes on its own (disabling an endpoint). */
  audit(trx: Trx, entry: AuditInput): Promise<void>
  /** Counts attempts by outcome and logs the failed ones. */
  readonly observer: DeliveryObserver
}

/** The longest wait a receiver's Retry-After can ask for. */
export const maxRetryAfterMs = 24 * 3_600_000

/** The `User-Agent` of every delivery. */
export const userAgent = 'Plinth-Webhooks/1.0'

/** Why an answer is not a success, in words for the delivery log. */
function answerError(status: number): string {
  if (status >= 300 && status < 400) return `the endpoint answered ${status}; redirects are not followed`
  return `the endpoint answered ${status}`
}

/** The outcome of an attempt refused before anything was sent (DNS, the guard, the panel itself). */
function notSent(message: string, durationMs = 0): PostOutcome {
  return { kind: 'failed', reason: 'network', message, durationMs }
}

/**
 * Makes one attempt of `row`, which `owner` has claimed: the DNS check and the POST together within the timeout, so
 * the attempt always ends before its claim does. A shutdown (`signal`) leaves the delivery pending and releases the
 * claim, so the next start sends it again (at least once).
 */
export async function deliverOnce(
  deps: DeliveryDeps,
  row: WebhookDeliveriesTable,
  owner: string,
  signal: AbortSignal,
): Promise<void> {
  const endpoint = await findEndpointRow(deps.db, row.endpoint_id)
  if (endpoint?.enabled !== 1) {
    const error = 'the endpoint is disabled'
    if (
      await finishAttempt(deps.db, row.id, owner, {
        status: 'failed',
        next_attempt_at: null,
        last_error: error,
      })
    )
      deps.observer.attempted(row, 'failed', { attempt: row.attempts, error, endpointDisabled: true })
    return
  }
  const attemptAt = new Date()
  const started = performance.now()
  let outcome: PostOutcome
  try {
    outcome = await attempt(deps, row, endpoint, attemptAt, signal)
  } catch (error) {
    // Counted like any failed attempt, so a fault of the panel's (a secret it can no longer open) cannot make a
    // delivery go round for ever without reaching `failed`.
    const message = error instanceof Error ? error.message : String(error)
    outcome = notSent(
      `the panel could not make the attempt: ${message}`,
      Math.round(performance.now() - started),
    )
  }
  if (outcome.kind === 'failed' && outcome.reason === 'aborted') {
    await releaseClaim(deps.db, row.id, owner)
    // This instance is stopping: another one sends it now rather than once its poll comes round.
    await deliveriesQueued(deps.store, deps.db)
    return
  }
  await record(deps, row, owner, endpoint, attemptAt, outcome)
}

/** Checks the URL again (DNS bounded by the timeout), signs, and POSTs to the checked address with what time is left. */
async function attempt(
  deps: DeliveryDeps,
  row: WebhookDeliveriesTable,
  endpoint: WebhookEndpointsTable,
  attemptAt: Date,
  signal: AbortSignal,
): Promise<PostOutcome> {
  const { settings } = deps
  const started = performance.now()
  const check = await checkWebhookUrl(
    endpoint.url,
    settings.policy,
    AbortSignal.any([AbortSignal.timeout(settings.timeoutMs), signal]),
  )
  if (signal.aborted)
    return { kind: 'failed', reason: 'aborted', message: 'the panel is stopping', durationMs: 0 }
  // DNS may have changed since the URL was saved (rebinding): nothing is sent, and the attempt counts.
  if (!check.ok)
    return notSent(`${check.refusal.code}: ${check.refusal.message}`, Math.round(performance.now() - started))
  const timestamp = Math.floor(attemptAt.getTime() / 1000)
  const left = Math.max(1, settings.timeoutMs - Math.round(performance.now() - started))
  const outcome = await postPinned({
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
    timeoutMs: left,
    signal,
    ...(settings.ca ? { ca: settings.ca } : {}),
  })
  if (outcome.kind === 'failed' && outcome.reason === 'timeout')
    return { ...outcome, message: `no answer within ${settings.timeoutMs} ms` }
  return outcome
}

/** What a recorded attempt is reported as, once its transaction committed. */
interface Recorded {
  readonly outcome: AttemptOutcome
  readonly error: string | null
  readonly nextAttemptAt: string | null
  readonly endpointGone?: boolean
}

/** Records how the attempt ended, in one transaction, then reports it; nothing when the claim was lost meanwhile. */
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
  const recorded = await deps.store.transaction(
    async (trx): Promise<Recorded | null> => {
      if (outcome.kind === 'answered' && outcome.status >= 200 && outcome.status < 300) {
        const finished = await finishAttempt(trx, row.id, owner, {
          ...common,
          status: 'succeeded',
          next_attempt_at: null,
          last_error: null,
        })
        return finished ? { outcome: 'succeeded', error: null, nextAttemptAt: null } : null
      }
      if (outcome.kind === 'answered' && outcome.status === 410) {
        const reason = `the endpoint answered 410 Gone on ${attemptAt.toISOString()}`
        const error = 'the endpoint answered 410 Gone: it was disabled'
        const finished = await finishAttempt(trx, row.id, owner, {
          ...common,
          status: 'failed',
          next_attempt_at: null,
          last_error: error,
        })
        if (!finished) return null
        const failed: Recorded = { outcome: 'failed', error, nextAttemptAt: null }
        // Only the endpoint as it was attempted: staff may have changed its URL (or disabled it) meanwhile.
        if (!(await disableGoneEndpoint(trx, endpoint.id, endpoint.url, reason))) return failed
        await failPendingDeliveries(trx, endpoint.id, 'the endpoint answered 410 Gone: it was disabled')
        await deps.audit(trx, {
          action: 'webhook.disable',
          subject: { type: 'webhook', id: endpoint.id },
          customerId: null,
          brandId: endpoint.brand_id,
          details: { reason, deliveryId: row.id },
        })
        return { ...failed, endpointGone: true }
      }
      const error = outcome.kind === 'answered' ? answerError(outcome.status) : outcome.message
      const scheduled = retryDelayMs(deps.settings.retryScheduleMs, attempts)
      // A receiver that asks for time (429 or 503 with Retry-After) gets it, up to a day; never less than the schedule.
      const asked = outcome.kind === 'answered' ? (outcome.retryAfterMs ?? 0) : 0
      const delay = scheduled === null ? null : Math.max(scheduled, Math.min(asked, maxRetryAfterMs))
      const nextAttemptAt = delay === null ? null : new Date(Date.now() + delay).toISOString()
      const finished = await finishAttempt(trx, row.id, owner, {
        ...common,
        status: delay === null ? 'failed' : 'pending',
        next_attempt_at: nextAttemptAt,
        last_error: error,
      })
      return finished ? { outcome: delay === null ? 'failed' : 'retrying', error, nextAttemptAt } : null
      // Every write here is conditional on what it changes (this claim, the endpoint's URL as attempted), which holds
      // under any isolation. Serializable isolation would only fail the records of attempts ending at once on
      // several instances against each other (recent deliveries share index pages), and a record given up after its
      // retries is an attempt made again.
    },
    { isolation: 'read committed' },
  )
  if (!recorded) return
  deps.observer.attempted(row, recorded.outcome, {
    attempt: attempts,
    durationMs: outcome.durationMs,
    statusCode: common.last_status_code,
    error: recorded.error,
    nextAttemptAt: recorded.nextAttemptAt,
    ...(recorded.endpointGone ? { endpointGone: true } : {}),
  })
}
