// What the delivery loop tells operators: a counter of attempts by outcome, how long receivers took, the backlog
// read at each scrape, and a log line for every failed attempt with the delivery's, endpoint's and event's ids (never
// the URL, which may carry a receiver's credentials, the secret, or the payload).

import type { Logger, PluginContext } from '../../core/index.ts'
import type { WebhookDeliveriesTable } from './migrations.ts'
import { pendingDeliveryStats } from './repository.ts'

/** How an attempt ended, as counted: `retrying` failed with attempts left; `failed` was the delivery's last. */
export type AttemptOutcome = 'succeeded' | 'retrying' | 'failed'

/** Seconds buckets of attempts: from a quick receiver to the 15 s timeout. */
const attemptBuckets = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30]

/** What the delivery loop reports to. */
export interface DeliveryObserver {
  /** An attempt's end was recorded. `detail` says why it was not a success. */
  attempted(
    row: WebhookDeliveriesTable,
    outcome: AttemptOutcome,
    detail: {
      readonly attempt: number
      readonly durationMs?: number
      readonly statusCode?: number | null
      readonly error?: string | null
      readonly nextAttemptAt?: string | null
      /** The endpoint answered 410 Gone on this attempt and was disabled. */
      readonly endpointGone?: boolean
      /** Nothing was sent: the endpoint had been disabled meanwhile. */
      readonly endpointDisabled?: boolean
    },
  ): void
  readonly log: Logger
}

/** The plugin's metrics on the panel's registry, and its log lines. */
export function deliveryObserver(context: Pick<PluginContext, 'metrics' | 'log' | 'db'>): DeliveryObserver {
  const outcomes = context.metrics.counter({
    name: 'plinth_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: succeeded, retrying (failed; another attempt is scheduled), failed (given up: out of attempts, or the endpoint gone or disabled).',
    labelNames: ['outcome'],
  })
  const durations = context.metrics.histogram({
    name: 'plinth_webhook_delivery_duration_seconds',
    help: 'How long delivery attempts took: until the receiver’s answer, the timeout or the failure.',
    buckets: attemptBuckets,
  })
  const stats = () => pendingDeliveryStats(context.db, new Date().toISOString())
  context.metrics.gauge({
    name: 'plinth_webhook_deliveries_pending',
    help: 'Deliveries waiting for an attempt (due now or at their retry time).',
    collect: async () => (await stats()).pending,
  })
  context.metrics.gauge({
    name: 'plinth_webhook_delivery_lag_seconds',
    help: 'How long the longest-waiting due delivery has waited for its attempt, in seconds; 0 when none waits.',
    async collect() {
      const { oldestDue } = await stats()
      return oldestDue === null ? 0 : Math.max(0, (Date.now() - Date.parse(oldestDue)) / 1000)
    },
  })
  const { log } = context
  // Labels made once: the counter's three series exist from the start, so a rate over them never meets a gap.
  for (const outcome of ['succeeded', 'retrying', 'failed'] as const) outcomes.inc({ outcome }, 0)
  return {
    log,
    attempted(row, outcome, detail) {
      outcomes.inc({ outcome })
      if (detail.durationMs !== undefined) durations.observe(detail.durationMs / 1000)
      if (outcome === 'succeeded') return
      const fields = {
        deliveryId: row.id,
        endpointId: row.endpoint_id,
        eventId: row.event_id,
        eventType: row.event_type,
        attempt: detail.attempt,
        statusCode: detail.statusCode ?? null,
        error: detail.error ?? null,
      }
      if (detail.endpointDisabled) log.info(fields, 'webhook delivery dropped: its endpoint is disabled')
      else if (detail.endpointGone)
        log.warn(
          fields,
          'webhook endpoint answered 410 Gone: it was disabled and its pending deliveries failed',
        )
      else if (outcome === 'retrying')
        log.warn(
          { ...fields, nextAttemptAt: detail.nextAttemptAt ?? null },
          'webhook delivery attempt failed; retrying',
        )
      else log.error(fields, 'webhook delivery failed for good')
    },
  }
}
