// Users of the panel: created by the CLI (and later the identity API); passwords hashed with argon2id.

import { newId, nowIso } from '../ids/ids.ts'
import { preparedQuery } from '../store/prepared-query.ts'
import type { Db } from '../store/store.ts'
import type { IdentityTables, UsersTable } from './identity-tables.ts'

/** A user as the kernel passes it around (never the password hash). */
export interface User {
  readonly id: string
  readonly email: string
  /** `platform` for the provider's staff, `brand` for a brand's staff, null for customer members. */
  readonly staffRole: 'platform' | 'brand' | null
  readonly brandId: string | null
  readonly createdAt: string
  /** When staff disabled the user, or null: a disabled user cannot sign in and their tokens are refused. */
  readonly disabledAt: string | null
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

/** The API form of a user row. */
export function toUser(row: UsersTable): User {
  return {
    id: row.id,
    email: row.email,
    staffRole: row.staff_role === 'platform' || row.staff_role === 'brand' ? row.staff_role : null,
    brandId: row.brand_id,
    createdAt: row.created_at,
    disabledAt: row.disabled_at ?? null,
  }
}

/** What a new user is made of. */
export interface NewUser {
  readonly email: string
  readonly password: string
  readonly staffRole: 'platform' | 'brand' | null
  readonly brandId?: string | null
}

/** A new user checked and with its password hashed, ready for `createUser`. */
export interface PreparedUser {
  readonly prepared: UsersTable
}

/**
 * Checks a new user and hashes its password: the slow part, done before any transaction so no store connection
 * is held while argon2id runs. Pass the result to `createUser` inside the transaction.
 */
export async function prepareUser(input: NewUser): Promise<PreparedUser> {
  if ((input.staffRole === 'brand') !== Boolean(input.brandId)) {
    throw new Error('Brand staff need a brandId, and only brand staff have one')
  }
  const email = normaliseEmail(input.email)
  if (!emailPattern.test(email))
    throw new UserError('invalid_email', `"${input.email}" is not an e-mail address`)
  checkPassword(input.password)
  const now = nowIso()
  return {
    prepared: {
      id: newId('usr'),
      email,
      password_hash: await hashPassword(input.password),
      staff_role: input.staffRole,
      brand_id: input.brandId ?? null,
      created_at: now,
      updated_at: now,
      disabled_at: null,
    },
  }
}

/**
 * Creates a user: platform staff, a brand's staff (`staffRole: 'brand'` with `brandId`), or a plain user; refuses an
 * e-mail already in use. Given a `NewUser` it prepares it first; inside a transaction, pass a `PreparedUser`.
 */
export async function createUser(db: Db, user: NewUser | PreparedUser): Promise<User> {
  const { prepared: row } = 'prepared' in user ? user : await prepareUser(user)
  const users = db.withTables<IdentityTables>()
  const taken = await users.selectFrom('users').select('id').where('email', '=', row.email).executeTakeFirst()
  if (taken) throw new UserError('email_taken', `A user with e-mail ${row.email} already exists`)
  await users.insertInto('users').values(row).execute()
  return toUser(row)
}

/** An argon2id hash of a password. */
export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, { algorithm: 'argon2id' })
}

/** Refuses a password too short or too long to be a good one. */
export function checkPassword(password: string): void {
  if (password.length < 12 || password.length > 256) {
    throw new UserError('weak_password', 'The password must be 12 to 256 characters long')
  }
}

/** The user with this e-mail and its password hash, or null (for login only). */
export async function findUserForLogin(
  db: Db,
  email: string,
): Promise<{ user: User; passwordHash: string } | null> {
  const row = await db
    .withTables<IdentityTables>()
    .selectFrom('users')
    .selectAll()
    .where('email', '=', normaliseEmail(email))
    .executeTakeFirst()
  return row ? { user: toUser(row), passwordHash: row.password_hash } : null
}

/** The user with this e-mail, or null. */
export async function findUserByEmail(db: Db, email: string): Promise<User | null> {
  return (await findUserForLogin(db, email))?.user ?? null
}

/** The user with this id, or null. */
export async function findUserById(db: Db, id: string): Promise<User | null> {
  const [row] = await userById(db, { id })
  return row ? toUser(row) : null
}

// Every authenticated request runs it: compiled once.
const userById = preparedQuery<{ id: string }, UsersTable>((db, p) =>
  db.withTables<IdentityTables>().selectFrom('users').selectAll().where('id', '=', p.id),
)

/** Stores a new password hash (made with {@link hashPassword} before the transaction). */
export async function setPasswordHash(db: Db, userId: string, passwordHash: string): Promise<void> {
  await db
    .withTables<IdentityTables>()
    .updateTable('users')
    .set({ password_hash: passwordHash, updated_at: nowIso() })
    .where('id', '=', userId)
    .execute()
}
