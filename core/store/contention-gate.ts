// Under contention, one at a time: serializable transactions that keep colliding on a few hot rows (a customer's
// counter, a node's site count) waste every attempt but one per round, and retrying them all at once only collides
// again. After a collision this instance runs its serializable transactions one after another for a short while,
// so each attempt commits; transactions of other instances may still collide, and are retried as before.

/** How long after a collision transactions keep running one at a time, in ms. */
const contendedForMs = 200

/** Runs work one at a time while contended, freely otherwise. */
export interface ContentionGate {
  /** Runs `attempt`: through the gate when `retry` is true (an attempt after a collision) or while contended. */
  run<T>(retry: boolean, attempt: () => Promise<T>): Promise<T>
  /** A transaction collided: run one at a time for a while. */
  collided(): void
}

export function contentionGate(now: () => number = Date.now): ContentionGate {
  let contendedUntil = 0
  // The tail of the queue: each attempt through the gate waits for the one before it.
  let tail: Promise<void> = Promise.resolve()

  return {
    async run(retry, attempt) {
      if (!retry && now() >= contendedUntil) return attempt()
      const previous = tail
      let release!: () => void
      tail = new Promise((resolve) => {
        release = resolve
      })
      await previous
      try {
        return await attempt()
      } finally {
        release()
      }
    },
    collided() {
      contendedUntil = now() + contendedForMs
    },
  }
}
