// The delivery loop inside the server process: claims due deliveries with a lease, runs up to `concurrency`
// attempts at once, and on shutdown gives running attempts a grace period before abandoning them to the next start.
// Every instance sharing the store runs one: claims lock what they take, so each attempt is made by one of them.

import { type Listening, listenWhileRunning, newId } from '../../core/index.ts'
import { type DeliveryDeps, deliverOnce } from './deliver.ts'
import { claimDue } from './repository.ts'
import { deliveriesChannel } from './wake-ups.ts'

/** A running loop. */
export interface DeliveryLoop {
  /** Starts polling (and claiming at once). Idempotent. */
  start(): void
  /** Wakes the loop: deliveries were just queued. */
  nudge(): void
  /** Stops claiming, lets attempts in flight finish within the grace period, then abandons the rest. */
  stop(): Promise<void>
}

/** Creates the loop of one panel; nothing runs until `start()`. */
export function createDeliveryLoop(deps: DeliveryDeps): DeliveryLoop {
  const { settings } = deps
  // Claims carry the owner, so a restarted process never mistakes another's attempt for its own.
  const owner = newId('whw')
  const running = new Map<
    string,
    { readonly endpointId: string; readonly controller: AbortController; readonly done: Promise<void> }
  >()
  let started = false
  let timer: ReturnType<typeof setTimeout> | undefined
  let claiming: Promise<void> | null = null
  let again = false
  let listening: Listening | null = null

  function launch(row: Parameters<typeof deliverOnce>[1]): void {
    // A claim of ours whose lease ran out could come back while its attempt still runs: never run it twice.
    if (running.has(row.id)) return
    const controller = new AbortController()
    const done = deliverOnce(deps, row, owner, controller.signal)
      .catch((error) =>
        deps.observer.log.error(
          { deliveryId: row.id, endpointId: row.endpoint_id, eventId: row.event_id, err: error },
          'webhook delivery failed unexpectedly; its claim runs out and it is tried again',
        ),
      )
      .finally(() => {
        running.delete(row.id)
        // A slot is free: take the next due delivery now rather than at the next poll.
        if (started) void fill()
      })
    running.set(row.id, { endpointId: row.endpoint_id, controller, done })
  }

  async function claimRound(): Promise<void> {
    do {
      again = false
      const room = settings.concurrency - running.size
      if (!started || room <= 0) return
      const now = Date.now()
      const claimed = await deps.store.transaction(
        (trx) =>
          claimDue(trx, {
            owner,
            now: new Date(now).toISOString(),
            leaseUntil: new Date(now + settings.leaseMs).toISOString(),
            limit: room,
            perEndpoint: settings.perEndpointConcurrency,
          }),
        // The claim locks what it counts and takes (see claimDue): no need for serializable isolation, under
        // which instances claiming at once would fail each other and run again.
        { isolation: 'read committed' },
      )
      for (const row of claimed) launch(row)
      if (claimed.length === room) again = true
    } while (again && started)
  }

  function fill(): Promise<void> {
    if (claiming) {
      again = true
      return claiming
    }
    claiming = claimRound()
      .catch((error) => {
        again = false
        deps.observer.log.error({ err: error }, 'claiming webhook deliveries failed')
      })
      .finally(() => {
        claiming = null
        // Woken after the round last looked: look again, or what woke it waits for the next poll.
        if (again && started) void fill()
      })
    return claiming
  }

  function schedule(): void {
    if (!started) return
    timer = setTimeout(async () => {
      await fill()
      schedule()
    }, settings.pollIntervalMs)
  }

  return {
    start() {
      if (started) return
      started = true
      // Deliveries queued on any instance (an event fanned out, an attempt given back) wake the loop.
      listening = listenWhileRunning(
        deps.store,
        deliveriesChannel,
        () => {
          if (started) void fill()
        },
        (error) =>
          deps.observer.log.error(
            { err: error },
            'listening for due deliveries failed; polling alone finds them',
          ),
      )
      void fill()
      schedule()
    },
    nudge() {
      if (started) void fill()
    },
    async stop() {
      started = false
      clearTimeout(timer)
      await listening?.stop()
      listening = null
      await claiming
      const attempts = [...running.values()]
      const settled = Promise.all(attempts.map((attempt) => attempt.done))
      const graceOver = new Promise<'grace over'>((resolve) => {
        const grace = setTimeout(() => resolve('grace over'), settings.shutdownGraceMs)
        void settled.then(() => clearTimeout(grace))
      })
      if ((await Promise.race([settled, graceOver])) === 'grace over') {
        // Abandoned attempts give their claim back, so the next start sends them again.
        for (const attempt of attempts) attempt.controller.abort()
        await settled
      }
    },
  }
}
