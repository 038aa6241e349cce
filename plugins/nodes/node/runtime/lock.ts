// One change at a time per data directory: a server block written, checked and reloaded must not interleave with
// another site's, or one site's broken block would fail the other's check.

const tails = new Map<string, Promise<unknown>>()

/** Runs `task` after every task queued before it under `key` (in this process) has settled. */
export async function serialized<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve()
  const current = previous.catch(() => {}).then(task)
  tails.set(key, current)
  try {
    return await current
  } finally {
    if (tails.get(key) === current) tails.delete(key)
  }
}
