// The team roles as the forms offer them. The API document's TeamRole enum is the authority; these are its words
// for people (docs/tenancy.md says what each holds).

import type { Schemas } from '../api/client.ts'

export type TeamRole = Schemas['TeamRole']

/** Select options for a team role, the most powerful first. */
export const roleOptions: readonly { readonly value: TeamRole; readonly label: string }[] = [
  { value: 'owner', label: 'Owner' },
  { value: 'admin', label: 'Admin' },
  { value: 'developer', label: 'Developer' },
  { value: 'billing', label: 'Billing' },
]

/** One line on what the roles mean, shown beside role fields. */
export const rolesHint =
  'Owner: everything, including billing and owners. Admin: everything but paying and owners. Developer: sites, databases, certificates, files and jobs. Billing: subscriptions and invoices.'

/** Whether `value` is a team role (a query parameter or form value). */
export function isTeamRole(value: unknown): value is TeamRole {
  return roleOptions.some((option) => option.value === value)
}

/** The team roles that hold `members:manage` and `customer:manage` (docs/tenancy.md's roles table). */
const managingRoles: ReadonlySet<string> = new Set(['owner', 'admin'])

/**
 * Whether the caller may manage this customer and its team. `can()` answers for any customer, so a member who
 * manages one team and only develops on another is asked about this customer's role.
 */
export function managesCustomer(
  session: { staff: boolean; can(scope: string): boolean; me: Schemas['Me'] },
  customerId: string,
  scope: 'members:manage' | 'customer:manage',
): boolean {
  if (!session.can(scope)) return false
  if (session.staff) return true
  const membership = session.me.memberships.find((m) => m.customerId === customerId)
  return membership !== undefined && managingRoles.has(membership.role)
}
