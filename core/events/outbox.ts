// The event outbox: events are written in the transaction of the change, and delivered from here after commit.

import { newId, nowIso } from '../ids/ids.ts'
import type { EventInput } from '../plugin/route.ts'
import { noticeOnCommit } from '../store/notices.ts'
import type { Trx } from '../store/store.ts'
import { brandOfCustomer } from '../tenancy/tenants.ts'
import type { OutboxTables } from './outbox-tables.ts'

/** The channel every instance's dispatcher listens on: events were written (`store.listen`). */
export const eventsChannel = 'events'

/** Puts an event in the outbox in `trx`, and tells every instance's dispatcher once `trx` commits; returns its id. */
export async function writeEvent(trx: Trx, event: EventInput): Promise<string> {
  const id = newId('evt')
  await trx
    .withTables<OutboxTables>()
    .insertInto('event_outbox')
    .values({
      id,
      kind: event.kind,
      occurred_at: nowIso(),
      customer_id: event.customerId,
      payload: JSON.stringify(event.data),
      dispatched_at: null,
      brand_id: event.customerId === null ? null : await brandOfCustomer(trx, event.customerId),
    })
    .execute()
  await noticeOnCommit(trx, eventsChannel)
  return id
}
