// Hands outbox events to the consumers (webhooks, ...) after their transaction committed: in outbox order, each
// batch in one transaction with marking it dispatched, so an event is handed over once, or again after a crash.

import type { Logger } from '../plugin/define-plugin.ts'
import type { Store } from '../store/store.ts'
import type { EventConsumer, OutboxEvent } from './event-consumer.ts'
import type { OutboxTables } from './outbox-tables.ts'

/** How the dispatcher runs. */
export interface DispatcherOptions {
  /** How often it looks for events written by other processes (requests of this one wake it). Default 250 ms. */
  readonly pollIntervalMs: number
  /** Events per transaction. Default 100. */
  readonly batchSize: number
}

export const defaultDispatcherOptions: DispatcherOptions = { pollIntervalMs: 250, batchSize: 100 }

/** The dispatcher of one panel; a failed batch is logged with the event and the consumer that threw. */
export function createDispatcher(
  store: Store,
  consumers: readonly EventConsumer[],
  options: DispatcherOptions,
  log: Logger,
) {
  let started = false
  /** Where the batch being dispatched is: the event and consumer a failure is logged with. */
  let at: { event: OutboxEvent; consumer: string } | null = null
  let timer: ReturnType<typeof setTimeout> | undefined
  let running: Promise<void> | null = null
  let again = false

  /** Dispatches one batch; returns how many events it handed over. */
  async function dispatchBatch(): Promise<number> {
    const count = await store.transaction(async (trx) => {
      const rows = await trx
        .withTables<OutboxTables>()
        .selectFrom('event_outbox')
        .selectAll()
        .where('dispatched_at', 'is', null)
        .orderBy('id')
        .limit(options.batchSize)
        .execute()
      for (const row of rows) {
        const event: OutboxEvent = {
          id: row.id,
          kind: row.kind,
          occurredAt: row.occurred_at,
          customerId: row.customer_id,
          brandId: row.brand_id,
          data: JSON.parse(row.payload) as Record<string, unknown>,
        }
        for (const consumer of consumers) {
          at = { event, consumer: consumer.name }
          await consumer.receive(trx, event)
        }
      }
      at = null
      if (rows.length > 0) {
        await trx
          .withTables<OutboxTables>()
          .updateTable('event_outbox')
          .set({ dispatched_at: new Date().toISOString() })
          .where(
            'id',
            'in',
            rows.map((row) => row.id),
          )
          .execute()
      }
      return rows.length
    })
    if (count > 0) for (const consumer of consumers) consumer.dispatched?.()
    return count
  }

  async function drain(): Promise<void> {
    do {
      again = false
      try {
        while (started && (await dispatchBatch()) === options.batchSize) {}
      } catch (error) {
        // The batch rolled back; it is offered again at the next tick.
        const where = at ? { eventId: at.event.id, kind: at.event.kind, consumer: at.consumer } : {}
        at = null
        log.error({ ...where, err: error }, 'dispatching events failed; the batch is offered again')
        return
      }
    } while (again && started)
  }

  function wake(): Promise<void> {
    if (running) {
      again = true
      return running
    }
    running = drain().finally(() => {
      running = null
    })
    return running
  }

  function schedule(): void {
    if (!started) return
    timer = setTimeout(async () => {
      await wake()
      schedule()
    }, options.pollIntervalMs)
  }

  return {
    /** Wakes the dispatcher: a transaction with events just committed. */
    nudge(): void {
      if (started) void wake()
    },
    /** Dispatches everything pending now (tests, shutdown). */
    async flush(): Promise<void> {
      const wasStarted = started
      started = true
      try {
        await wake()
        await wake()
      } finally {
        started = wasStarted
      }
    },
    start(): void {
      if (started) return
      started = true
      void wake()
      schedule()
    },
    async stop(): Promise<void> {
      started = false
      clearTimeout(timer)
      await running
    },
  }
}
