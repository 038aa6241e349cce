// Users of the panel: created by the CLI (and later the identity API); passwords hashed with argon2id.

import { newId, nowIso } from '../ids/ids.ts'
import type { Db } from '../store/store.ts'
import type { KernelTables, UsersTable } from './tables.ts'

/** A user as the kernel passes it around (never the password hash). */
export interface User {
  readonly id: string
  readonly email: string
  readonly staffRole: 'platform' | null
  readonly brandId: string | null
  readonly createdAt: string
}

/** Refusal of a user operation, with a message fit for a CLI or a problem detail. */
export class UserError extends Error {
  constructor(
    readonly code: 'invalid_email' | 'weak_password' | 'email_taken' | 'unknown_user',
    message: string,
  ) {
    super(message)
    this.name = 'UserError'
  }
}

const emailPattern = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,63}$/

/** The form emails are stored and compared in. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase()
}

function toUser(row: UsersTable): User {
  return {
    id: row.id,
    email: row.email,
    staffRole: row.staff_role === 'platform' ? 'platform' : null,
    brandId: row.brand_id,
    createdAt: row.created_at,
  }
}

/** Creates a user. Platform staff are made with `staffRole: 'platform'`. */
export async function createUser(
  db: Db,
  input: { email: string; password: string; staffRole: 'platform' | null },
): Promise<User> {
  const email = normaliseEmail(input.email)
  if (!emailPattern.test(email))
    throw new UserError('invalid_email', `"${input.email}" is not an e-mail address`)
  if (input.password.length < 12 || input.password.length > 256) {
    throw new UserError('weak_password', 'The password must be 12 to 256 characters long')
  }
  const users = db.withTables<KernelTables>()
  const taken = await users.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst()
  if (taken) throw new UserError('email_taken', `A user with e-mail ${email} already exists`)
  const now = nowIso()
  const row: UsersTable = {
    id: newId('usr'),
    email,
    password_hash: await Bun.password.hash(input.password, { algorithm: 'argon2id' }),
    staff_role: input.staffRole,
    brand_id: null,
    created_at: now,
    updated_at: now,
  }
  await users.insertInto('users').values(row).execute()
  return toUser(row)
}

/** The user with this e-mail, or null. */
export async function findUserByEmail(db: Db, email: string): Promise<User | null> {
  const row = await db
    .withTables<KernelTables>()
    .selectFrom('users')
    .selectAll()
    .where('email', '=', normaliseEmail(email))
    .executeTakeFirst()
  return row ? toUser(row) : null
}

/** The user with this id, or null. */
export async function findUserById(db: Db, id: string): Promise<User | null> {
  const row = await db
    .withTables<KernelTables>()
    .selectFrom('users')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst()
  return row ? toUser(row) : null
}

/** Every scope the user holds now: platform staff hold every scope the panel declares. */
export function scopesOfUser(user: User, panelScopes: ReadonlySet<string>): Set<string> {
  if (user.staffRole === 'platform') return new Set(panelScopes)
  // Brand staff and customer roles arrive with the identity issue; until then an ordinary user holds nothing.
  return new Set()
}
