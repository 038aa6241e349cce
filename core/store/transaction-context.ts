// Which transaction's work is running in an async context, so a store can refuse a query that escapes it.

import { AsyncLocalStorage } from 'node:async_hooks'

/** The transaction whose work is running in this async context, while it runs (stores set it). */
export const openTransaction = new AsyncLocalStorage<{ open: boolean }>()

/**
 * Runs `work` outside any transaction's context: for work a transaction defers (a timer that wakes the job workers
 * once it has likely committed), which is not part of it and takes connections of its own.
 */
export function outsideTransactions<T>(work: () => T): T {
  return openTransaction.exit(work)
}
