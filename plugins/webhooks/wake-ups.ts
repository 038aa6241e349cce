// How the delivery loops of every panel instance learn of deliveries due now: a notice on the store's channel,
// sent when the transaction that queued them commits. Polling remains for retries whose time comes.

import type { Db, Store } from '../../core/index.ts'

/** The channel the delivery loops listen on. */
export const deliveriesChannel = 'webhooks.deliveries'

/** Tells every instance's delivery loop that deliveries are due, once `db`'s transaction commits (at once outside one). */
export function deliveriesQueued(store: Store, db: Db): Promise<void> {
  return store.notify(db, deliveriesChannel)
}
