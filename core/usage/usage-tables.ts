// Usage counters kept as rows change.

/** Counts kept up to date as rows change, per scope: `all`, `brand:<id>`, `customer:<id>`. */
export interface UsageCountersTable {
  scope_key: string
  metric: string
  /** Which of a scope's rows: 0, or on PostgreSQL one of `counterShards` for the installation and brands. */
  shard: number
  value: number
}

/** For `db.withTables<UsageTables>()` (a type alias: Kysely needs an index-compatible type). */
export type UsageTables = {
  usage_counters: UsageCountersTable
}
