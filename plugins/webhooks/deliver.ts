// One attempt of one delivery: check the endpoint's URL again, sign, POST to the checked address; then the outcome
// (success, a retry by the schedule, failure for good, or the endpoint disabled by a 410) is recorded, most often
// together with other attempts' in one transaction of the delivery loop (delivery-loop.ts).

import type { AuditInput, Db, PluginContext, Store, Trx } from '../../core/index.ts'
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from './migrations.ts'
import type { AttemptOutcome, DeliveryObserver } from './observability.ts'
import type { WebhookSettings } from './options.ts'
import { disableGoneEndpoint, failPendingDeliveries, finishAttempt, releaseClaim } from './repository.ts'
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

/** How an attempt went, before it is recorded. */
export type AttemptResult =
  /** The endpoint is disabled: nothing was sent, and the delivery fails. */
  | { readonly kind: 'disabled' }
  /** The panel is stopping: the claim is given back untried (the next start, or another instance, sends it). */
  | { readonly kind: 'abandoned' }
  /** Something was (or could not be) sent at `attemptAt`: the attempt counts. */
  | { readonly kind: 'made'; readonly attemptAt: Date; readonly outcome: PostOutcome }

/** An attempt that has ended, waiting to be recorded. */
export interface FinishedAttempt {
  /** The delivery as claimed. */
  readonly row: WebhookDeliveriesTable
  /** Its endpoint as the claim read it. */
  readonly endpoint: WebhookEndpointsTable
  readonly result: AttemptResult
}

/**
 * Makes one attempt of `row`, claimed with `endpoint`: the DNS check and the POST together within the timeout, so
 * the attempt always ends before its claim does. Never throws; a shutdown (`signal`) makes it `abandoned`.
 */
export async function makeAttempt(
  deps: DeliveryDeps,
  row: WebhookDeliveriesTable,
  endpoint: WebhookEndpointsTable,
  signal: AbortSignal,
): Promise<AttemptResult> {
  if (endpoint.enabled !== 1) return { kind: 'disabled' }
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
  if (outcome.kind === 'failed' && outcome.reason === 'aborted') return { kind: 'abandoned' }
  return { kind: 'made', attemptAt, outcome }
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
export interface Recorded {
  readonly outcome: AttemptOutcome
  readonly detail: Parameters<DeliveryObserver['attempted']>[2]
}

/**
 * Whether the attempt's record needs a transaction of its own: a 410 Gone disables the endpoint, fails its other
 * deliveries and audits that, locking rows other instances' claims lock too. Every other record writes only the
 * delivery this instance holds, and shares a transaction with the records and claims of the loop's round.
 */
export function recordsAlone(finished: FinishedAttempt): boolean {
  const { result } = finished
  return result.kind === 'made' && result.outcome.kind === 'answered' && result.outcome.status === 410
}

/**
 * Records how the attempt held by `owner` ended, in `trx` (read committed); answers what to report once it
 * commits, or null when there is nothing to report (the claim was lost meanwhile, or given back).
 */
export async function recordAttempt(
  deps: DeliveryDeps,
  trx: Trx,
  owner: string,
  finished: FinishedAttempt,
): Promise<Recorded | null> {
  const { row, endpoint, result } = finished
  if (result.kind === 'abandoned') {
    await releaseClaim(trx, row.id, owner)
    // This instance is stopping: another one sends it now rather than once its poll comes round.
    await deliveriesQueued(deps.store, trx)
    return null
  }
  if (result.kind === 'disabled') {
    const error = 'the endpoint is disabled'
    const done = await finishAttempt(trx, row.id, owner, {
      status: 'failed',
      next_attempt_at: null,
      last_error: error,
    })
    return done
      ? { outcome: 'failed', detail: { attempt: row.attempts, error, endpointDisabled: true } }
      : null
  }
  const { attemptAt, outcome } = result
  const attempts = row.attempts + 1
  const common = {
    attempts,
    last_attempt_at: attemptAt.toISOString(),
    last_status_code: outcome.kind === 'answered' ? outcome.status : null,
    last_response_ms: outcome.durationMs,
  }
  const reported = (
    recorded: AttemptOutcome,
    error: string | null,
    nextAttemptAt: string | null,
    endpointGone?: boolean,
  ): Recorded => ({
    outcome: recorded,
    detail: {
      attempt: attempts,
      durationMs: outcome.durationMs,
      statusCode: common.last_status_code,
      error,
      nextAttemptAt,
      ...(endpointGone ? { endpointGone: true } : {}),
    },
  })
  // Every write here is conditional on what it changes (this claim, the endpoint's URL as attempted), which holds
  // under any isolation. Serializable isolation would only fail the records of attempts ending at once on several
  // instances against each other (recent deliveries share index pages), and a record given up after its retries is
  // an attempt made again.
  if (outcome.kind === 'answered' && outcome.status >= 200 && outcome.status < 300) {
    const done = await finishAttempt(trx, row.id, owner, {
      ...common,
      status: 'succeeded',
      next_attempt_at: null,
      last_error: null,
    })
    return done ? reported('succeeded', null, null) : null
  }
  if (outcome.kind === 'answered' && outcome.status === 410) {
    const reason = `the endpoint answered 410 Gone on ${attemptAt.toISOString()}`
    const error = 'the endpoint answered 410 Gone: it was disabled'
    const done = await finishAttempt(trx, row.id, owner, {
      ...common,
      status: 'failed',
      next_attempt_at: null,
      last_error: error,
    })
    if (!done) return null
    // Only the endpoint as it was attempted: staff may have changed its URL (or disabled it) meanwhile.
    if (!(await disableGoneEndpoint(trx, endpoint.id, endpoint.url, reason)))
      return reported('failed', error, null)
    await failPendingDeliveries(trx, endpoint.id, 'the endpoint answered 410 Gone: it was disabled')
    await deps.audit(trx, {
      action: 'webhook.disable',
      subject: { type: 'webhook', id: endpoint.id },
      customerId: null,
      brandId: endpoint.brand_id,
      details: { reason, deliveryId: row.id },
    })
    return reported('failed', error, null, true)
  }
  const error = outcome.kind === 'answered' ? answerError(outcome.status) : outcome.message
  const scheduled = retryDelayMs(deps.settings.retryScheduleMs, attempts)
  // A receiver that asks for time (429 or 503 with Retry-After) gets it, up to a day; never less than the schedule.
  const asked = outcome.kind === 'answered' ? (outcome.retryAfterMs ?? 0) : 0
  const delay = scheduled === null ? null : Math.max(scheduled, Math.min(asked, maxRetryAfterMs))
  const nextAttemptAt = delay === null ? null : new Date(Date.now() + delay).toISOString()
  const done = await finishAttempt(trx, row.id, owner, {
    ...common,
    status: delay === null ? 'failed' : 'pending',
    next_attempt_at: nextAttemptAt,
    last_error: error,
  })
  return done ? reported(delay === null ? 'failed' : 'retrying', error, nextAttemptAt) : null
}

/** Reports a recorded attempt (metrics, and a log line when it failed). */
export function reportAttempt(deps: DeliveryDeps, finished: FinishedAttempt, recorded: Recorded): void {
  deps.observer.attempted(finished.row, recorded.outcome, recorded.detail)
}
