// The only file that knows the `sftp_users` columns: rows read and written, and turned into the API's item.

import type { Db } from '../../core/index.ts'
import type { SftpUser } from './contract.ts'
import type { SftpUsersTable } from './migrations.ts'

/** A stored public key: what the API shows, and the line the node compares logins with. */
export interface StoredKey {
  readonly type: string
  readonly fingerprint: string
  readonly comment: string
  readonly openssh: string
}

/** The plugin's tables through `db` (a transaction's `trx` inside one). */
export const sftpTables = (db: Db) => db.withTables<{ sftp_users: SftpUsersTable }>()

/** The keys of a row. */
export const keysOf = (row: SftpUsersTable): StoredKey[] => JSON.parse(row.publicKeys) as StoredKey[]

/** A row as the API shows it. */
export function toSftpUser(row: SftpUsersTable): SftpUser {
  return {
    id: row.id,
    siteId: row.siteId,
    customerId: row.customerId,
    username: row.username,
    passwordEnabled: row.passwordEnabled === 1,
    publicKeys: keysOf(row).map(({ type, fingerprint, comment }) => ({ type, fingerprint, comment })),
    readOnly: row.readOnly === 1,
    expiresAt: row.expiresAt,
    host: row.host,
    port: row.port,
    hostKeyFingerprints: JSON.parse(row.hostKeyFingerprints) as string[],
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }
}

/** The accounts of a site, for a list (the kernel walks the keyset). */
export const siteAccounts = (db: Db, siteId: string) =>
  sftpTables(db).selectFrom('sftp_users').selectAll().where('siteId', '=', siteId)

/** One account of a site, or undefined. */
export const findAccount = (db: Db, siteId: string, id: string) =>
  siteAccounts(db, siteId).where('id', '=', id).executeTakeFirst()

/** Whether a login name is in use. */
export async function usernameTaken(db: Db, username: string): Promise<boolean> {
  const row = await sftpTables(db)
    .selectFrom('sftp_users')
    .select('id')
    .where('username', '=', username)
    .executeTakeFirst()
  return row !== undefined
}

export const insertAccount = (db: Db, row: SftpUsersTable) =>
  sftpTables(db).insertInto('sftp_users').values(row).execute()

export const updateAccount = (db: Db, id: string, changes: Partial<SftpUsersTable>) =>
  sftpTables(db).updateTable('sftp_users').set(changes).where('id', '=', id).execute()

export const deleteAccount = (db: Db, id: string) =>
  sftpTables(db).deleteFrom('sftp_users').where('id', '=', id).execute()

/** Removes a deleted site's accounts (the node lost them with the site's home). */
export const deleteSiteAccounts = (db: Db, siteId: string) =>
  sftpTables(db).deleteFrom('sftp_users').where('siteId', '=', siteId).execute()
