// Runs on the same repository take turns on this node: restic 0.14 does not wait for another's lock (a forget's
// prune holds it whole), so a restore started while the retention after a backup prunes would fail at once. A run
// waits for the one before it on its repository, saying so in its step; a cancel stops the wait.

import type { RepositoryLocation } from './protocol.ts'
import type { RunContext } from './run-context.ts'
import { RunFailure } from './run-failure.ts'

const turns = new Map<string, Promise<void>>()

/** What names a repository, whatever credentials reach it. */
export function repositoryKey(location: RepositoryLocation): string {
  switch (location?.kind) {
    case 'local':
      return `local:${location.name}`
    case 'sftp':
      return `sftp:${location.username}@${location.host}:${location.port}:${location.path}`
    case 'rest':
      return `rest:${location.url}`
    case 's3':
      return `s3:${location.endpoint}/${location.bucket}/${location.prefix}`
    default:
      return 'unknown'
  }
}

/** Runs `work` once every run before it on `key` has ended. */
export async function inTurn<T>(key: string, context: RunContext, work: () => Promise<T>): Promise<T> {
  const before = turns.get(key)
  let done = () => {}
  const mine = new Promise<void>((resolve) => {
    done = resolve
  })
  const chained = (before ?? Promise.resolve()).then(() => mine)
  turns.set(key, chained)
  try {
    if (before) {
      context.report(0, 'waiting for another run on the repository')
      const cancelled = new Promise<never>((_, reject) => {
        if (context.signal.aborted) reject(new RunFailure('cancelled', 'The run was cancelled.'))
        context.signal.addEventListener(
          'abort',
          () => reject(new RunFailure('cancelled', 'The run was cancelled.')),
          { once: true },
        )
      })
      cancelled.catch(() => {})
      await Promise.race([before, cancelled])
    }
    return await work()
  } finally {
    done()
    if (turns.get(key) === chained) turns.delete(key)
  }
}
