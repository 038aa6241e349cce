// Hands outbox events to the consumers (webhooks, ...) after their transaction committed: in outbox order, each
// batch in one transaction with marking it dispatched, so an event is handed over once, or again after a crash.
// Across instances one dispatcher works at a time (a lock each batch tries to take, in a read committed
// transaction), so consumers still get events in outbox order, each once; the others wait for the next wake-up.

import type { Logger } from '../plugin/define-plugin.ts'
import { tryExclusiveLock } from '../store/advisory-lock.ts'
import { type Listening, listenWhileRunning } from '../store/listening.ts'
import type { Store } from '../store/store.ts'
import type { EventConsumer, OutboxEvent } from './event-consumer.ts'
import { eventsChannel } from './outbox.ts'
import type { OutboxTables } from './outbox-tables.ts'

/** The lock only one instance's dispatcher holds at a time. */
const dispatcherLock = 'plinth.outbox.dispatcher'

/** How the dispatcher runs. */
export interface DispatcherOptions {
  /**
   * How often it looks for events it was not told of: events written by any instance wake it when their
   * transaction commits (`store.listen`), so this is the safety net. Default 250 ms.
   */
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
  /** Where the batch being dispatched is: the event (the batch's first, for a batch consumer) and consumer a failure is logged with. */
  let at: { event: OutboxEvent; consumer: string } | null = null
  let timer: ReturnType<typeof setTimeout> | undefined
  let running: Promise<void> | null = null
  /** Wake-ups so far, and how many there had been when a batch last looked for events. */
  let wakes = 0
  let lookedAt = 0
  let listening: Listening | null = null

  /** Dispatches one batch; returns how many events it handed over (none while another instance dispatches). */
  async function dispatchBatch(): Promise<number> {
    const count = await store.transaction(
      async (trx) => {
        // Events whose wake-up came before this look have committed, and this batch (or the instance dispatching
        // now, told of the same events) takes them.
        lookedAt = wakes
        // Another instance is dispatching: it was told of the same events and takes them, in order.
        if (!(await tryExclusiveLock(trx, dispatcherLock))) return 0
        // Read after the lock, so it sees every mark the last holder committed.
        const rows = await trx
          .withTables<OutboxTables>()
          .selectFrom('event_outbox')
          .selectAll()
          .where('dispatched_at', 'is', null)
          .orderBy('id')
          .limit(options.batchSize)
          .execute()
        const events = rows.map(
          (row): OutboxEvent => ({
            id: row.id,
            kind: row.kind,
            occurredAt: row.occurred_at,
            customerId: row.customer_id,
            brandId: row.brand_id,
            data: JSON.parse(row.payload) as Record<string, unknown>,
          }),
        )
        const [first] = events
        // Consumer by consumer: a batch consumer takes the whole batch at once (one query for it, not one an event).
        if (first)
          for (const consumer of consumers) {
            if (consumer.receiveBatch) {
              at = { event: first, consumer: consumer.name }
              await consumer.receiveBatch(trx, events)
              continue
            }
            for (const event of events) {
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
      },
      // The lock makes dispatchers take turns, and each statement after it sees what the last one committed.
      // Serializable isolation would add nothing to that, but fail a batch (and run its consumers again) whenever
      // a transaction writing new events conflicted with it, which under load is often.
      { isolation: 'read committed' },
    )
    if (count > 0) for (const consumer of consumers) consumer.dispatched?.()
    return count
  }

  async function drain(): Promise<void> {
    do {
      try {
        while (started && (await dispatchBatch()) === options.batchSize) {}
      } catch (error) {
        // The batch rolled back; it is offered again at the next tick.
        const where = at ? { eventId: at.event.id, kind: at.event.kind, consumer: at.consumer } : {}
        at = null
        lookedAt = wakes
        log.error({ ...where, err: error }, 'dispatching events failed; the batch is offered again')
        return
      }
      // Woken after the batch looked: look again. Any number of wake-ups meanwhile make one more batch, not one each.
    } while (wakes > lookedAt && started)
  }

  function wake(): Promise<void> {
    wakes++
    if (running) return running
    running = drain().finally(() => {
      running = null
      // Woken after the drain last looked: look again, or what woke it waits for the next poll.
      if (wakes > lookedAt && started) void wake()
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
      // Events written on any instance wake it when their transaction commits.
      listening = listenWhileRunning(
        store,
        eventsChannel,
        () => {
          if (started) void wake()
        },
        (error) => log.error({ err: error }, 'listening for new events failed; polling alone finds them'),
      )
      void wake()
      schedule()
    },
    async stop(): Promise<void> {
      started = false
      clearTimeout(timer)
      await listening?.stop()
      listening = null
      await running
    },
  }
}
