// The delivery loop inside the server process. Each round is one transaction that records the attempts ended since
// the last (group commit) and claims, with a lease, as many due deliveries as there is room for; attempts run at
// once, as many as the backlog holds up to `concurrency`, each endpoint's up to `perEndpointConcurrency`. A round
// starts when an attempt ends or deliveries are queued, and while one runs the next gathers what ends meanwhile, so
// under a burst rounds grow instead of multiplying. On shutdown running attempts get a grace period before they are
// abandoned to the next start. Every instance sharing the store runs one: claims lock what they take, so each
// attempt is made by one of them.

import { type Listening, listenWhileRunning, newId } from '../../core/index.ts'
import {
  type DeliveryDeps,
  type FinishedAttempt,
  makeAttempt,
  type Recorded,
  recordAttempt,
  recordsAlone,
  reportAttempt,
} from './deliver.ts'
import { type ClaimedDelivery, claimDue } from './repository.ts'
import { deliveriesChannel } from './wake-ups.ts'

/**
 * How long an ended attempt may wait to be recorded (and its slot refilled): long enough that attempts ending close
 * together share a round, or share the round claiming the next events' deliveries; short beside any receiver's
 * answer, so a busy endpoint's slots are refilled about as fast as one by one.
 */
const recordWithinMs = 5

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
  const log = deps.observer.log
  // Claims carry the owner, so a restarted process never mistakes another's attempt for its own.
  const owner = newId('whw')
  /** Claimed deliveries of this loop until their attempt is recorded; `ended` once the attempt itself has. */
  const running = new Map<
    string,
    {
      readonly controller: AbortController
      readonly done: Promise<void>
      ended: boolean
    }
  >()
  /** Attempts that have ended, for the next round to record. */
  let ended: FinishedAttempt[] = []
  let started = false
  let timer: ReturnType<typeof setTimeout> | undefined
  /** Set while ended attempts wait for a round (see `recordWithinMs`). */
  let recordTimer: ReturnType<typeof setTimeout> | undefined
  let round: Promise<void> | null = null
  /** Whether deliveries may have become due since a round last looked (a wake-up came, or it took all it could). */
  let mayBeDue = false
  let listening: Listening | null = null

  /** Attempts of this loop not yet ended. */
  function inFlight(): number {
    let count = 0
    for (const attempt of running.values()) if (!attempt.ended) count++
    return count
  }

  function launch({ delivery, endpoint }: ClaimedDelivery): void {
    // A claim of ours whose lease ran out could come back while its attempt still runs: never run it twice.
    if (running.has(delivery.id)) return
    const controller = new AbortController()
    const done = makeAttempt(deps, delivery, endpoint, controller.signal)
      .then(async (result) => {
        const finished: FinishedAttempt = { row: delivery, endpoint, result }
        if (recordsAlone(finished)) {
          await recordEach([finished])
          running.delete(delivery.id)
          wake()
          return
        }
        attemptEnded(finished)
      })
      .catch((error) => {
        running.delete(delivery.id)
        log.error(
          {
            deliveryId: delivery.id,
            endpointId: delivery.endpoint_id,
            eventId: delivery.event_id,
            err: error,
          },
          'webhook delivery failed unexpectedly; its claim runs out and it is tried again',
        )
      })
    running.set(delivery.id, { controller, done, ended: false })
  }

  /**
   * Queues an ended attempt for recording within `recordWithinMs`, or sooner by a round that claims meanwhile (one
   * transaction for both). Attempts that end close together are recorded together, and their slots refilled by one
   * claim, rather than one round for each.
   */
  function attemptEnded(finished: FinishedAttempt): void {
    const attempt = running.get(finished.row.id)
    if (attempt) attempt.ended = true
    ended.push(finished)
    // Freed slots may be wanted by deliveries already due.
    mayBeDue = true
    if (!started) {
      void kick()
      return
    }
    recordTimer ??= setTimeout(() => {
      recordTimer = undefined
      void kick()
    }, recordWithinMs)
  }

  /** Records `finished` one transaction each, so one that cannot be recorded does not hold back the others. */
  async function recordEach(finished: readonly FinishedAttempt[]): Promise<void> {
    for (const attempt of finished) {
      try {
        const recorded = await deps.store.transaction((trx) => recordAttempt(deps, trx, owner, attempt), {
          isolation: 'read committed',
        })
        if (recorded) reportAttempt(deps, attempt, recorded)
      } catch (error) {
        log.error(
          {
            deliveryId: attempt.row.id,
            endpointId: attempt.row.endpoint_id,
            eventId: attempt.row.event_id,
            err: error,
          },
          'recording a webhook attempt failed; its claim runs out and it is tried again',
        )
      }
    }
  }

  /** Free slots: the attempts ended (recorded or waiting for it) no longer hold one. */
  function room(): number {
    return started ? settings.concurrency - inFlight() : 0
  }

  /** One round, one transaction: records what ended, and claims what there is room for if any may be due. */
  async function runRound(): Promise<void> {
    clearTimeout(recordTimer)
    recordTimer = undefined
    const finished = ended
    ended = []
    const limit = room()
    const look = limit > 0 && mayBeDue
    if (finished.length === 0 && !look) return
    let outcome: { recorded: (Recorded | null)[]; claimed: ClaimedDelivery[] }
    try {
      outcome = await deps.store.transaction(
        async (trx) => {
          const recorded: (Recorded | null)[] = []
          // Recorded first: the claim below then counts these attempts out of their endpoints' limits.
          for (const attempt of finished) recorded.push(await recordAttempt(deps, trx, owner, attempt))
          if (!look) return { recorded, claimed: [] }
          // Deliveries whose wake-up came before this look have committed, and the claim sees them. The time is
          // taken here, not before the transaction: deliveries committed while the round waited for it carry a
          // later `next_attempt_at` than a time read earlier, and would wait for the next poll.
          mayBeDue = false
          const now = Date.now()
          const claimed = await claimDue(trx, {
            owner,
            now: new Date(now).toISOString(),
            leaseUntil: new Date(now + settings.leaseMs).toISOString(),
            limit,
            perEndpoint: settings.perEndpointConcurrency,
          })
          return { recorded, claimed }
        },
        // The claim locks what it counts and takes (see claimDue), and each record writes only a delivery this
        // instance holds: no need for serializable isolation, under which instances would fail each other.
        { isolation: 'read committed' },
      )
    } catch (error) {
      // The claim is left to the next wake-up or poll, so a claim that keeps failing does not spin.
      mayBeDue = false
      if (finished.length === 0) throw error
      log.error({ err: error }, 'recording webhook attempts together failed; recording them one by one')
      await recordEach(finished)
      for (const attempt of finished) running.delete(attempt.row.id)
      return
    }
    finished.forEach((attempt, index) => {
      running.delete(attempt.row.id)
      const recorded = outcome.recorded[index]
      if (recorded) reportAttempt(deps, attempt, recorded)
    })
    // As many as there was room for: more may be due.
    if (look && outcome.claimed.length === limit) mayBeDue = true
    for (const claimed of outcome.claimed) launch(claimed)
  }

  /** Whether a round has work: attempts to record, or room for deliveries that may be due. */
  function moreToDo(): boolean {
    return ended.length > 0 || (mayBeDue && room() > 0)
  }

  /** Runs rounds while there is work, one at a time: what comes up while one runs waits for the next. */
  function kick(): Promise<void> {
    if (round) return round
    if (!moreToDo()) return Promise.resolve()
    round = (async () => {
      while (moreToDo()) await runRound()
    })()
      .catch((error) => log.error({ err: error }, 'claiming webhook deliveries failed'))
      .finally(() => {
        round = null
        if (moreToDo()) void kick()
      })
    return round
  }

  /**
   * Deliveries may be due (queued, retries whose time came, a slot freed): a round looks. Wake-ups while a round
   * runs make one more round after it if they came after its claim looked, however many there were.
   */
  function wake(): Promise<void> {
    mayBeDue = true
    return kick()
  }

  function schedule(): void {
    if (!started) return
    timer = setTimeout(async () => {
      await wake()
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
          if (started) void wake()
        },
        (error) => log.error({ err: error }, 'listening for due deliveries failed; polling alone finds them'),
      )
      void wake()
      schedule()
    },
    nudge() {
      if (started) void wake()
    },
    async stop() {
      started = false
      clearTimeout(timer)
      await listening?.stop()
      listening = null
      await round
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
      // Record what ended (and give back what was abandoned) before the store closes.
      await round
      await kick()
      clearTimeout(recordTimer)
    },
  }
}
