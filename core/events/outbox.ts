// The event outbox: events are written in the transaction of the change, and delivered from here after commit.

import { newId, nowIso } from '../ids/ids.ts'
import type { EventInput } from '../plugin/route.ts'
import type { Trx } from '../store/store.ts'
import { brandOfCustomer } from '../tenancy/tenants.ts'
import type { OutboxTables } from './outbox-tables.ts'

/** Puts an event in the outbox in `trx`; returns its id (`evt_…`). */
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
  return id
}
