// Listening for the lifetime of a background loop: started with the loop, stopped with it, however far the
// listening had got (a PostgreSQL connection still being made must not hold a shutdown).

import type { StopListening, Store } from './store.ts'

/** A loop's listening; `stop()` resolves at once if listening had not begun (it is stopped when it does). */
export interface Listening {
  stop(): Promise<void>
}

/**
 * Calls `wake` on every notice on `channel` of `store` (and as listening begins) until `stop()`. A failure to
 * listen goes to `failed`: the loop's polling then finds the work alone.
 * @example const listening = listenWhileRunning(context.store, 'myplugin.work', () => loop.nudge(), (err) => context.log.error({ err }, 'listening failed'))
 */
export function listenWhileRunning(
  store: Store,
  channel: string,
  wake: () => void,
  failed: (error: unknown) => void,
): Listening {
  let stopped = false
  let unlisten: StopListening | null = null
  store
    .listen(channel, () => {
      if (!stopped) wake()
    })
    .then(
      (stop) => {
        if (stopped) void stop().catch(() => {})
        else unlisten = stop
      },
      (error) => {
        if (!stopped) failed(error)
      },
    )
  return {
    async stop() {
      stopped = true
      const stop = unlisten
      unlisten = null
      // Not listening any more is all that matters here: the store may be closing.
      await stop?.().catch(() => {})
    },
  }
}
