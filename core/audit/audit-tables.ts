// The audit log's table.

export interface AuditEntriesTable {
  id: string
  occurred_at: string
  action: string
  actor_user_id: string | null
  actor_token_id: string | null
  subject_type: string
  subject_id: string
  customer_id: string | null
  /** The brand the entry belongs to (the customer's, or a brand's own record's); null for installation-wide ones. */
  brand_id: string | null
  request_id: string | null
  source_address: string | null
  /** JSON object with what changed; never secrets. */
  details: string
}

/** For `db.withTables<AuditTables>()` (a type alias: Kysely needs an index-compatible type). */
export type AuditTables = {
  audit_entries: AuditEntriesTable
}
