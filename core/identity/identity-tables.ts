// The identity tables: users, their API tokens and their sessions.

export interface UsersTable {
  id: string
  email: string
  password_hash: string
  /** `platform` for the provider's own staff, `brand` for a brand's staff (with `brand_id`), null otherwise. */
  staff_role: string | null
  brand_id: string | null
  created_at: string
  updated_at: string
  /** When staff disabled the user (sessions ended, tokens refused), or null while enabled. */
  disabled_at: string | null
}

export interface ApiTokensTable {
  id: string
  user_id: string
  name: string
  token_hash: string
  /** JSON array of scope names, possibly `["*"]`. */
  scopes: string
  customer_id: string | null
  expires_at: string
  created_at: string
  last_used_at: string | null
  revoked_at: string | null
}

export interface SessionsTable {
  id: string
  /** SHA-256 of the session secret, hex. */
  secret_hash: string
  user_id: string
  created_at: string
  expires_at: string
  /** The client address the session was created from (truncated), when known. */
  created_address: string | null
  /** The `User-Agent` it was created with (truncated), when sent. */
  user_agent: string | null
}

/** For `db.withTables<IdentityTables>()` (a type alias: Kysely needs an index-compatible type). */
export type IdentityTables = {
  users: UsersTable
  api_tokens: ApiTokensTable
  sessions: SessionsTable
}
