// Who is calling: the user, the token in use, and the scopes and customers that result.

/** Kinds of caller: the provider's staff, a brand's staff, or a member of customers' teams. */
export type CallerKind = 'platform' | 'brand' | 'member'

/** The token a request authenticated with. */
export interface CallerToken {
  readonly id: string
  /** Scopes as granted at creation (`*` kept as is). */
  readonly scopes: readonly string[]
  /** The one customer the token is limited to, if any. */
  readonly customerId: string | null
  readonly expiresAt: string
}

/** The authenticated caller of a request. */
export interface Caller {
  readonly kind: CallerKind
  readonly user: { readonly id: string; readonly email: string; readonly brandId: string | null }
  readonly token: CallerToken | null
  /** Effective scopes: the token's scopes narrowed to what the user holds now (`*` expanded). */
  readonly scopes: ReadonlySet<string>
}

/** The wildcard scope: every permission the token's creator holds. */
export const wildcardScope = '*'

/**
 * Effective scopes of a token: what it asks for, never more than its user holds now, so a user who loses a
 * permission takes it from their tokens too.
 */
export function effectiveScopes(
  tokenScopes: readonly string[],
  userScopes: ReadonlySet<string>,
): Set<string> {
  if (tokenScopes.includes(wildcardScope)) return new Set(userScopes)
  return new Set(tokenScopes.filter((scope) => userScopes.has(scope)))
}
