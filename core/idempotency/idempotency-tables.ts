// The kept answers of Idempotency-Key requests.

/** A remembered answer to a creating request, by caller and Idempotency-Key. */
export interface IdempotencyKeysTable {
  caller: string
  key: string
  fingerprint: string
  /** `in_flight` while the first request runs, `done` once its answer is kept. */
  state: string
  response_status: number | null
  response_headers: string | null
  response_body: string | null
  created_at: string
  expires_at: string
}

/** For `db.withTables<IdempotencyTables>()` (a type alias: Kysely needs an index-compatible type). */
export type IdempotencyTables = {
  idempotency_keys: IdempotencyKeysTable
}
