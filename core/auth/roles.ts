// Team roles and the scopes they grant on their customer, worked out from the scopes the plugins declare.

/** Roles a user can have on a customer's team. */
export const teamRoles = ['owner', 'admin', 'developer', 'billing'] as const
export type TeamRole = (typeof teamRoles)[number]

/** What each role holds, by the resource part of a scope (`site` of `site:create`). */
const roleResources: Readonly<Record<Exclude<TeamRole, 'owner' | 'admin'>, readonly string[]>> = {
  // Sites include their files and shell (`site:files`, `site:shell`).
  developer: ['site', 'database', 'certificate', 'job'],
  billing: ['billing'],
}

/** A scope as the role mapping needs it. */
export interface RoleScope {
  readonly name: string
  /** Staff scopes are never held through a team role. */
  readonly staff: boolean
}

/**
 * The scopes `role` grants on its customer. `owner`: every customer scope; `admin`: all but `billing:manage`
 * (and removing owners, which the members operations check); `developer`: sites (with files and shell),
 * databases, certificates, jobs; `billing`: billing and `customer:read`.
 */
export function scopesOfRole(role: TeamRole, scopes: readonly RoleScope[]): Set<string> {
  const customerScopes = scopes.filter((scope) => !scope.staff).map((scope) => scope.name)
  switch (role) {
    case 'owner':
      return new Set(customerScopes)
    case 'admin':
      return new Set(customerScopes.filter((name) => name !== 'billing:manage'))
    case 'billing':
      return new Set(
        customerScopes.filter(
          (name) => roleResources.billing.includes(resourceOf(name)) || name === 'customer:read',
        ),
      )
    case 'developer':
      return new Set(customerScopes.filter((name) => roleResources.developer.includes(resourceOf(name))))
  }
}

function resourceOf(scope: string): string {
  return scope.split(':')[0] ?? ''
}

/** Whether a string is a team role. */
export function isTeamRole(value: string): value is TeamRole {
  return (teamRoles as readonly string[]).includes(value)
}
