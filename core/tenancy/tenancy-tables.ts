// The tenancy tables: which brand each customer belongs to, and who is on each customer's team.

/** Which brand each customer belongs to: written by the customers plugin through the tenancy service. */
export interface TenantsTable {
  customer_id: string
  brand_id: string
  /** When the customer's deletion started (it takes nothing new from then on); null while it is open. */
  closing_at: string | null
}

/** A user's role on a customer's team. */
export interface MembershipsTable {
  user_id: string
  customer_id: string
  role: string
  created_at: string
}

/** For `db.withTables<TenancyTables>()` (a type alias: Kysely needs an index-compatible type). */
export type TenancyTables = {
  tenants: TenantsTable
  memberships: MembershipsTable
}
