// The notices a store transaction collects (`store.notify`), kept by the transaction's connection, so a writer
// that has only the transaction (the outbox, the job queue) can add one and the store sends them with the commit.

import type { DatabaseConnection } from 'kysely'
import type { Db } from './store.ts'

/** Lower case, digits, `.` and `_`, at most 40 characters: `jobs`, `webhooks.deliveries`. */
const channelPattern = /^[a-z][a-z0-9_.]{0,39}$/

/** Throws unless `channel` is a well-formed channel name (a typo must not become a channel nobody hears). */
export function checkChannel(channel: string): string {
  if (!channelPattern.test(channel))
    throw new Error(`"${channel}" is not a notification channel: use lower case, digits, "." and "_"`)
  return channel
}

/** Channels notified in each open store transaction, by its connection (which only that transaction holds). */
const pending = new WeakMap<DatabaseConnection, Set<string>>()

/** The connection `trx` runs on (a transaction has exactly one). */
function connectionOf(trx: Db): Promise<DatabaseConnection> {
  return trx.getExecutor().provideConnection(async (connection) => connection)
}

/**
 * Runs a store transaction's `work` on `trx`, collecting what it notifies; answers its result and the channels.
 * Stores call it inside the transaction: PostgreSQL then sends the channels before committing, SQLite after.
 */
export async function collectNotices<T>(
  trx: Db,
  work: () => Promise<T>,
): Promise<{ readonly result: T; readonly channels: ReadonlySet<string> }> {
  const connection = await connectionOf(trx)
  const channels = new Set<string>()
  pending.set(connection, channels)
  try {
    return { result: await work(), channels }
  } finally {
    // The connection goes back to the pool (or, on SQLite, to the next transaction): its notices stay here.
    pending.delete(connection)
  }
}

/**
 * Adds `channel` to the notices of `db`'s store transaction; false when `db` is not inside one (the caller then
 * notifies at once, or, without a store at hand, leaves it to polling).
 */
export async function noticeOnCommit(db: Db, channel: string): Promise<boolean> {
  checkChannel(channel)
  if (!db.isTransaction) return false
  const channels = pending.get(await connectionOf(db))
  channels?.add(channel)
  return channels !== undefined
}
