// The event outbox's table.

export interface EventOutboxTable {
  id: string
  kind: string
  occurred_at: string
  customer_id: string | null
  /** JSON of the event's `data`. */
  payload: string
  dispatched_at: string | null
  /** The customer's brand when the event was written, so brand endpoints get only their brand's events. */
  brand_id: string | null
}

/** For `db.withTables<OutboxTables>()` (a type alias: Kysely needs an index-compatible type). */
export type OutboxTables = {
  event_outbox: EventOutboxTable
}
