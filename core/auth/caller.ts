// Who is calling: the user, the credential in use, and what that lets them see and do, per scope.

import { sql } from 'kysely'
import type { User } from '../identity/users.ts'
import type { Db } from '../store/store.ts'
import type { TenancyTables } from '../tenancy/tenancy-tables.ts'
import type { TenantView } from '../tenancy/tenant-view.ts'
import { type RoleScope, scopesOfRole, type TeamRole } from './roles.ts'

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

/** A role the user holds on a customer's team. */
export interface CallerMembership {
  readonly customerId: string
  readonly role: TeamRole
}

/** The authenticated caller of a request. */
export interface Caller {
  readonly kind: CallerKind
  readonly user: { readonly id: string; readonly email: string; readonly brandId: string | null }
  /** The token in use, or null for a session. */
  readonly token: CallerToken | null
  /** The session in use, or null for a token. */
  readonly session: { readonly id: string } | null
  readonly memberships: readonly CallerMembership[]
  /** Effective scopes anywhere: the token's scopes narrowed to what the user holds now (`*` expanded). */
  readonly scopes: ReadonlySet<string>
  /** Every customer the caller can see with some scope (staff: all or its brand; members: their teams). */
  readonly view: TenantView
  /** The customers the caller may act on with `scope`: every list and read goes through it. */
  viewFor(scope: string): TenantView
}

/** The wildcard scope: every permission the token's creator holds. */
export const wildcardScope = '*'

/** A scope as the caller model needs it: who may hold it. */
export interface ScopeHolding extends RoleScope {
  /** Only platform staff hold it (brand staff do not). */
  readonly platformOnly: boolean
}

const nothing: TenantView = { kind: 'customers', customerIds: [] }

function narrow(scopes: Iterable<string>, token: CallerToken | null): Set<string> {
  const held = new Set(scopes)
  if (!token || token.scopes.includes(wildcardScope)) return held
  return new Set(token.scopes.filter((scope) => held.has(scope)))
}

/**
 * Builds the caller of `user` with `token` (or a session): its effective scopes and its view per scope. A token
 * never grants more than its user holds now, so a member who loses a role takes it from their tokens too.
 */
export async function buildCaller(
  db: Db,
  user: User,
  credential: { token: CallerToken } | { session: { id: string } },
  panelScopes: readonly ScopeHolding[],
): Promise<Caller> {
  const token = 'token' in credential ? credential.token : null
  const session = 'session' in credential ? credential.session : null
  const limit = token?.customerId ?? null
  const base = { user: { id: user.id, email: user.email, brandId: user.brandId }, token, session }

  if (user.staffRole === 'platform' || user.staffRole === 'brand') {
    const brandId = user.staffRole === 'brand' ? user.brandId : null
    const held = panelScopes
      .filter((scope) => brandId === null || !scope.platformOnly)
      .map((scope) => scope.name)
    const scopes = narrow(held, token)
    let view: TenantView = brandId === null ? { kind: 'all' } : { kind: 'brand', brandId }
    if (limit !== null)
      view = (await customerInView(db, view, limit)) ? { kind: 'customers', customerIds: [limit] } : nothing
    return {
      ...base,
      kind: brandId === null ? 'platform' : 'brand',
      memberships: [],
      scopes,
      view,
      viewFor: (scope) => (scopes.has(scope) ? view : nothing),
    }
  }

  const rows = await db
    .withTables<TenancyTables>()
    .selectFrom('memberships')
    .select(['customer_id', 'role'])
    .where('user_id', '=', user.id)
    .orderBy('customer_id')
    .execute()
  // A token limited to one customer shows (and uses) only that customer's membership.
  const memberships = rows
    .map((row) => ({ customerId: row.customer_id, role: row.role as TeamRole }))
    .filter((membership) => limit === null || membership.customerId === limit)
  const byCustomer = new Map(
    memberships.map((membership) => [
      membership.customerId,
      narrow(scopesOfRole(membership.role, panelScopes), token),
    ]),
  )
  const scopes = new Set([...byCustomer.values()].flatMap((held) => [...held]))
  const views = new Map<string, TenantView>()
  return {
    ...base,
    kind: 'member',
    memberships,
    scopes,
    view: { kind: 'customers', customerIds: [...byCustomer.keys()] },
    // Worked out once per scope: a kept caller answers many requests.
    viewFor: (scope) => {
      let scoped = views.get(scope)
      if (!scoped) {
        const customerIds = [...byCustomer].filter(([, held]) => held.has(scope)).map(([id]) => id)
        scoped = { kind: 'customers', customerIds }
        views.set(scope, scoped)
      }
      return scoped
    },
  }
}

/**
 * Whether a customer exists inside a view. The whole installation's view asks the tenants registry too: an id
 * nobody registered (or a customer since removed) is in no view, so `?customerId=` of an unknown customer is a 404
 * for staff as for anyone, never an empty answer.
 */
export async function customerInView(db: Db, view: TenantView, customerId: string): Promise<boolean> {
  if (view.kind === 'customers') return view.customerIds.includes(customerId)
  let registered = db
    .withTables<TenancyTables>()
    .selectFrom('tenants')
    .select(sql<number>`1`.as('one'))
    .where('customer_id', '=', customerId)
  if (view.kind === 'brand') registered = registered.where('brand_id', '=', view.brandId)
  return (await registered.executeTakeFirst()) !== undefined
}

/** The caller's scopes that reach `customerId`: what a token limited to that customer could hold. */
export async function scopesOnCustomer(db: Db, caller: Caller, customerId: string): Promise<Set<string>> {
  const held = new Set<string>()
  // Staff have one view for every scope: asked about once, not once per scope.
  const answers = new Map<TenantView, boolean>()
  for (const scope of caller.scopes) {
    const view = caller.viewFor(scope)
    let inView = answers.get(view)
    if (inView === undefined) {
      inView = await customerInView(db, view, customerId)
      answers.set(view, inView)
    }
    if (inView) held.add(scope)
  }
  return held
}
