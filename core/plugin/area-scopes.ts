// The two scopes of a plain area, reading and changing, declared once: their names for the routes and their
// definitions for the plugin.

import type { TeamRole } from '../auth/roles.ts'
import type { ScopeDefinition } from './define-plugin.ts'

/** The scopes of an area; see {@link areaScopes}. */
export interface AreaScopes<A extends string> {
  readonly read: `${A}:read`
  readonly manage: `${A}:manage`
  /** Both, for the plugin's `scopes`. */
  readonly declared: readonly ScopeDefinition[]
}

/**
 * `<area>:read` ("Read <what>") and `<area>:manage` ("Change <what>"), held by `roles` (default owners and admins):
 * the object is what `resourceRoutes` takes as its `scopes`, and its `declared` what the plugin declares.
 * `descriptions` says either scope in other words, when "Read …" or "Change …" says too little.
 * @example export const dnsScopes = areaScopes('dns', 'DNS zones and their records', ['owner', 'admin', 'developer'])
 * @example scopes: dnsScopes.declared
 */
export function areaScopes<const A extends string>(
  area: A,
  what: string,
  roles?: readonly TeamRole[],
  descriptions: { readonly read?: string; readonly manage?: string } = {},
): AreaScopes<A> {
  const held = roles ? { roles } : {}
  const read = `${area}:read` as const
  const manage = `${area}:manage` as const
  return {
    read,
    manage,
    declared: [
      { name: read, description: descriptions.read ?? `Read ${what}`, ...held },
      { name: manage, description: descriptions.manage ?? `Change ${what}`, ...held },
    ],
  }
}
