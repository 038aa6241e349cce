// What staff (through the API) and operators (through the CLI) do to an account: disable and enable a user, and
// list and revoke anyone's API tokens. The routes and core/host.ts share these, so both write the same rows and
// the same audit entries, in the transaction of the change.

import { type AuditActor, writeAudit } from '../audit/audit-log.ts'
import { invalidateUserSessions } from '../auth/sessions.ts'
import { nowIso } from '../ids/ids.ts'
import type { AuditInput } from '../plugin/route.ts'
import type { Db, Store, Trx } from '../store/store.ts'
import type { TenancyTables } from '../tenancy/tenancy-tables.ts'
import { type ApiToken, apiTokensQuery, toApiToken } from './api-tokens.ts'
import type { IdentityTables } from './identity-tables.ts'
import { toUser, type User } from './users.ts'

/** Writes an audit entry in the change's transaction (a route's `audit`, or {@link writeAudit} with an actor). */
export type AuditWriter = (trx: Trx, entry: AuditInput) => Promise<void>

/** The actor of what the CLI does: no user or token, `cli` as the address. */
export const cliActor: AuditActor = { userId: null, tokenId: null, requestId: null, sourceAddress: 'cli' }

const identity = (db: Db) => db.withTables<IdentityTables & TenancyTables>()

/**
 * The brand an entry about `user` belongs to, so that brand's staff see it: a brand's staff member's brand, or the
 * one brand every customer of a member's teams belongs to; null for platform staff and users of several brands.
 */
export async function brandOfUser(
  db: Db,
  user: Pick<User, 'id' | 'brandId' | 'staffRole'>,
): Promise<string | null> {
  if (user.staffRole !== null) return user.brandId
  const brands = await identity(db)
    .selectFrom('memberships')
    .innerJoin('tenants', 'tenants.customer_id', 'memberships.customer_id')
    .select('tenants.brand_id')
    .distinct()
    .where('memberships.user_id', '=', user.id)
    .limit(2)
    .execute()
  return brands.length === 1 ? (brands[0]?.brand_id ?? null) : null
}

/** What disabling or enabling did. */
export interface DisabledChange {
  /** The user as it is now. */
  readonly user: User
  /** False when the user already was as asked: nothing was written, no entry made. */
  readonly changed: boolean
}

/**
 * Disables (`disabled: true`) or enables a user in `trx`, with its `user.disable` / `user.enable` entry. Disabling
 * ends every session of the user at once (deleted) and makes their tokens refused (401 `account_disabled`) from the
 * next request, in this process or any other; enabling lets their unexpired, unrevoked tokens work again (sessions
 * stay ended). Asking for what already is changes nothing. Null when there is no such user.
 */
export async function setDisabledIn(
  trx: Trx,
  userId: string,
  disabled: boolean,
  audit: AuditWriter,
): Promise<DisabledChange | null> {
  const row = await identity(trx).selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst()
  if (!row) return null
  if ((row.disabled_at !== null) === disabled) return { user: toUser(row), changed: false }
  const now = nowIso()
  const changed = { ...row, disabled_at: disabled ? now : null, updated_at: now }
  // A write to `users` also ends every kept caller of the user's tokens (core/auth/token-callers.ts).
  await identity(trx)
    .updateTable('users')
    .set({ disabled_at: changed.disabled_at, updated_at: now })
    .where('id', '=', userId)
    .execute()
  if (disabled) await invalidateUserSessions(trx, userId)
  const user = toUser(changed)
  await audit(trx, {
    action: disabled ? 'user.disable' : 'user.enable',
    subject: { type: 'user', id: user.id },
    customerId: null,
    brandId: await brandOfUser(trx, user),
    details: { email: user.email },
  })
  return { user, changed: true }
}

/** Revokes the live token `tokenId` of `userId` in `trx`, with its `token.revoke` entry; null when there is none. */
export async function revokeTokenIn(
  trx: Trx,
  userId: string,
  tokenId: string,
  audit: AuditWriter,
): Promise<ApiToken | null> {
  const row = await apiTokensQuery(trx, userId).where('id', '=', tokenId).executeTakeFirst()
  if (!row) return null
  await identity(trx)
    .updateTable('api_tokens')
    .set({ revoked_at: nowIso() })
    .where('id', '=', tokenId)
    .execute()
  const token = toApiToken(row)
  const user = await identity(trx).selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst()
  await audit(trx, {
    action: 'token.revoke',
    subject: { type: 'token', id: token.id },
    customerId: token.customerId,
    brandId: user && token.customerId === null ? await brandOfUser(trx, toUser(user)) : null,
    details: { userId, name: token.name },
  })
  return token
}

// Host functions (core/host.ts): the CLI acts as the installation, on every user.

/** Every user, oldest first. */
export async function listUsers(db: Db): Promise<User[]> {
  const rows = await identity(db).selectFrom('users').selectAll().orderBy('id').execute()
  return rows.map(toUser)
}

/** Disables or enables the user `userId` with its audit entry (actor: the CLI unless told); null for no such user. */
export function setUserDisabled(
  store: Store,
  userId: string,
  disabled: boolean,
  actor: AuditActor = cliActor,
): Promise<DisabledChange | null> {
  return store.transaction((trx) =>
    setDisabledIn(trx, userId, disabled, (into, entry) => writeAudit(into, actor, entry)),
  )
}

/** A user's live (not revoked) tokens, oldest first, expired ones included: never their secrets. */
export async function listApiTokensOf(db: Db, userId: string): Promise<ApiToken[]> {
  const rows = await apiTokensQuery(db, userId).orderBy('id').execute()
  return rows.map(toApiToken)
}

/** Revokes the live token `tokenId`, whoever's it is, with its audit entry; null when there is no such token. */
export function revokeApiTokenById(
  store: Store,
  tokenId: string,
  actor: AuditActor = cliActor,
): Promise<ApiToken | null> {
  return store.transaction(async (trx) => {
    const row = await identity(trx)
      .selectFrom('api_tokens')
      .select('user_id')
      .where('id', '=', tokenId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst()
    if (!row) return null
    return revokeTokenIn(trx, row.user_id, tokenId, (into, entry) => writeAudit(into, actor, entry))
  })
}
