// Team roles, and the scopes each holds on its customer: read from what every scope declares (`roles`), so a
// plugin's customer scopes reach the roles it says, and the kernel names no plugin's resources.

/** Roles a user can have on a customer's team. */
export const teamRoles = ['owner', 'admin', 'developer', 'billing'] as const
export type TeamRole = (typeof teamRoles)[number]

/** What each role is for, for the generated roles table. */
export const teamRoleDescriptions: Readonly<Record<TeamRole, string>> = {
  owner: 'Everything on the customer; the only role that removes or demotes owners.',
  admin: 'Everything on the customer but what scopes reserve for owners and billing (`billing:manage`).',
  developer:
    'The customer’s hosting resources and their jobs: whatever scopes of the hosting plugins name it.',
  billing: 'The customer’s billing and subscriptions, and reading the customer.',
}

/** Who holds a customer scope when it does not say: owners and admins. */
export const defaultScopeRoles: readonly TeamRole[] = ['owner', 'admin']

/** A scope as the role mapping needs it. */
export interface RoleScope {
  readonly name: string
  /** Staff scopes are never held through a team role. */
  readonly staff: boolean
  /** The team roles that hold it (customer scopes); default {@link defaultScopeRoles}. */
  readonly roles?: readonly TeamRole[]
}

/** The scopes `role` grants on its customer: every customer scope that lists the role. */
export function scopesOfRole(role: TeamRole, scopes: readonly RoleScope[]): Set<string> {
  return new Set(
    scopes
      .filter((scope) => !scope.staff && (scope.roles ?? defaultScopeRoles).includes(role))
      .map((scope) => scope.name),
  )
}

/** Whether a string is a team role. */
export function isTeamRole(value: string): value is TeamRole {
  return (teamRoles as readonly string[]).includes(value)
}
