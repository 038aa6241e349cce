// Reads and writes of the databases plugin's tables; the only file that knows its columns.

import { type Db, newId, nowIso, selectVisible, type TenantView } from '../../core/index.ts'
import type { Database, DatabaseGrant, DatabaseServer, DatabaseUser } from './contract.ts'
import type {
  DatabaseGrantsTable,
  DatabaseServersTable,
  DatabasesTable,
  DatabasesTables,
  DatabaseUsersTable,
} from './migrations.ts'

const tables = (db: Db) => db.withTables<DatabasesTables>()

// Servers

/** The API form of a server row (never its password), with how many databases it holds. */
export function toServer(row: DatabaseServersTable, databases: number): DatabaseServer {
  return {
    id: row.id,
    name: row.name,
    engine: row.engine as DatabaseServer['engine'],
    host: row.host,
    port: row.port,
    username: row.username,
    status: row.status as DatabaseServer['status'],
    version: row.version,
    capacity: row.capacity,
    nodeId: row.node_id,
    databases,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

export function serversQuery(db: Db) {
  return tables(db).selectFrom('database_servers').selectAll()
}

/** Servers with how many databases each holds (`database_count`), for lists. */
export function serversWithCounts(db: Db) {
  return tables(db)
    .selectFrom('database_servers')
    .selectAll('database_servers')
    .select((eb) =>
      eb
        .selectFrom('databases')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('databases.server_id', '=', 'database_servers.id')
        .as('database_count'),
    )
}

/** A server row as a list reads it. */
export type ServerListRow = DatabaseServersTable & { database_count: number | null }

export function findServerRow(db: Db, id: string): Promise<DatabaseServersTable | undefined> {
  return serversQuery(db).where('id', '=', id).executeTakeFirst()
}

export async function serverNameTaken(
  db: Db,
  name: string,
  exceptId: string | null = null,
): Promise<boolean> {
  let query = serversQuery(db).where('name', '=', name)
  if (exceptId) query = query.where('id', '!=', exceptId)
  return (await query.executeTakeFirst()) !== undefined
}

export async function insertServer(db: Db, row: DatabaseServersTable): Promise<void> {
  await tables(db).insertInto('database_servers').values(row).execute()
}

export async function updateServer(
  db: Db,
  id: string,
  changes: Partial<Omit<DatabaseServersTable, 'id' | 'engine' | 'created_at'>>,
): Promise<void> {
  await tables(db).updateTable('database_servers').set(changes).where('id', '=', id).execute()
}

/** How many databases each of `serverIds` holds (deleting ones included: they are still on it). */
export async function databaseCounts(db: Db, serverIds: readonly string[]): Promise<Map<string, number>> {
  if (serverIds.length === 0) return new Map()
  const rows = await tables(db)
    .selectFrom('databases')
    .select(['server_id', (eb) => eb.fn.countAll<number>().as('count')])
    .where('server_id', 'in', serverIds)
    .groupBy('server_id')
    .execute()
  return new Map(rows.map((row) => [row.server_id, Number(row.count)]))
}

/** How many databases and database users the servers `serverIds` hold, in any state. */
export async function heldOn(
  db: Db,
  serverIds: readonly string[],
): Promise<{ readonly databases: number; readonly users: number }> {
  if (serverIds.length === 0) return { databases: 0, users: 0 }
  const count = async (table: 'databases' | 'database_users') =>
    Number(
      (
        await tables(db)
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number | string>().as('count'))
          .where('server_id', 'in', serverIds)
          .executeTakeFirstOrThrow()
      ).count,
    )
  return { databases: await count('databases'), users: await count('database_users') }
}

/** The servers the node `nodeId` runs itself (at most one). */
export function serversOfNode(db: Db, nodeId: string): Promise<DatabaseServersTable[]> {
  return serversQuery(db).where('node_id', '=', nodeId).execute()
}

/** Deletes the server `id` (it holds nothing). */
export async function deleteServer(db: Db, id: string): Promise<void> {
  await tables(db).deleteFrom('database_servers').where('id', '=', id).execute()
}

/** Active servers of `engine`, oldest first. */
export function activeServers(db: Db, engine: string): Promise<DatabaseServersTable[]> {
  return serversQuery(db).where('engine', '=', engine).where('status', '=', 'active').orderBy('id').execute()
}

// Databases

export function toDatabase(
  row: DatabasesTable,
  server: Pick<DatabaseServersTable, 'host' | 'port'>,
): Database {
  return {
    id: row.id,
    customerId: row.customer_id,
    siteId: row.site_id,
    engine: row.engine as Database['engine'],
    name: row.name,
    serverId: row.server_id,
    host: server.host,
    port: server.port,
    status: row.status as Database['status'],
    sizeBytes: row.size_bytes === null ? null : Number(row.size_bytes),
    sizeMeasuredAt: row.size_measured_at,
    jobId: row.job_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

/** Databases the view reaches, with their server's host and port, for lists and reads. */
export function visibleDatabases(db: Db, view: TenantView) {
  return selectVisible(tables(db), 'databases', view)
    .innerJoin('database_servers', 'database_servers.id', 'databases.server_id')
    .selectAll('databases')
    .select(['database_servers.host', 'database_servers.port'])
}

/** A database row with its server's host and port: what a list row is. */
export type DatabaseListRow = DatabasesTable & { host: string; port: number }

export function findDatabaseRow(db: Db, id: string): Promise<DatabasesTable | undefined> {
  return tables(db).selectFrom('databases').selectAll().where('id', '=', id).executeTakeFirst()
}

export function databaseRowsOf(db: Db, ids: readonly string[]): Promise<DatabasesTable[]> {
  if (ids.length === 0) return Promise.resolve([])
  return tables(db).selectFrom('databases').selectAll().where('id', 'in', ids).execute()
}

export async function databaseNameTaken(db: Db, serverId: string, name: string): Promise<boolean> {
  const row = await tables(db)
    .selectFrom('databases')
    .select('id')
    .where('server_id', '=', serverId)
    .where('name', '=', name)
    .executeTakeFirst()
  return row !== undefined
}

/** Whether `engine` has a database of the real name `name` on any server (names are per customer and engine). */
export async function databaseNameTakenOnEngine(db: Db, engine: string, name: string): Promise<boolean> {
  const row = await tables(db)
    .selectFrom('databases')
    .select('id')
    .where('engine', '=', engine)
    .where('name', '=', name)
    .executeTakeFirst()
  return row !== undefined
}

/** A new database's row, `provisioning`, with nothing measured or claimed yet. */
export function newDatabaseRow(
  fields: Pick<DatabasesTable, 'customer_id' | 'site_id' | 'server_id' | 'engine' | 'name'>,
): DatabasesTable {
  const now = nowIso()
  return {
    id: newId('db'),
    ...fields,
    status: 'provisioning',
    size_bytes: null,
    size_measured_at: null,
    job_id: null,
    sync_job: null,
    sync_until: null,
    created_at: now,
    updated_at: now,
  }
}

export async function insertDatabase(db: Db, row: DatabasesTable): Promise<void> {
  await tables(db).insertInto('databases').values(row).execute()
}

export async function updateDatabase(
  db: Db,
  id: string,
  changes: Partial<Omit<DatabasesTable, 'id' | 'customer_id' | 'created_at'>>,
): Promise<DatabasesTable> {
  await tables(db)
    .updateTable('databases')
    .set({ ...changes, updated_at: nowIso() })
    .where('id', '=', id)
    .execute()
  const row = await findDatabaseRow(db, id)
  if (!row) throw new Error(`database ${id} vanished while it was changed`)
  return row
}

export async function deleteDatabaseRow(db: Db, id: string): Promise<void> {
  await tables(db).deleteFrom('database_grants').where('database_id', '=', id).execute()
  await tables(db).deleteFrom('databases').where('id', '=', id).execute()
}

/** A customer's databases in the given states. */
export function databasesOfCustomer(db: Db, customerId: string, statuses: readonly string[]) {
  return tables(db)
    .selectFrom('databases')
    .selectAll()
    .where('customer_id', '=', customerId)
    .where('status', 'in', statuses)
    .execute()
}

/** Databases of a site that are not already on their way out. */
export function databasesOfSite(db: Db, siteId: string) {
  return tables(db)
    .selectFrom('databases')
    .selectAll()
    .where('site_id', '=', siteId)
    .where('status', 'in', ['provisioning', 'active', 'failed'])
    .execute()
}

/** Active databases on a server. */
export function activeDatabasesOn(db: Db, serverId: string) {
  return tables(db)
    .selectFrom('databases')
    .selectAll()
    .where('server_id', '=', serverId)
    .where('status', '=', 'active')
    .execute()
}

// Users and grants

export function toUser(
  row: DatabaseUsersTable,
  server: Pick<DatabaseServersTable, 'host' | 'port'>,
): DatabaseUser {
  return {
    id: row.id,
    customerId: row.customer_id,
    engine: row.engine as DatabaseUser['engine'],
    serverId: row.server_id,
    username: row.username,
    host: server.host,
    port: server.port,
    allowedHosts: JSON.parse(row.allowed_hosts) as string[],
    grants: JSON.parse(row.grants) as DatabaseGrant[],
    status: row.status as DatabaseUser['status'],
    locked: row.locked === 1,
    drift: row.drift === null ? null : (JSON.parse(row.drift) as DatabaseUser['drift']),
    jobId: row.job_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

/** Users the view reaches, with their server's host and port, for lists and reads. */
export function visibleUsers(db: Db, view: TenantView) {
  return selectVisible(tables(db), 'database_users', view)
    .innerJoin('database_servers', 'database_servers.id', 'database_users.server_id')
    .selectAll('database_users')
    .select(['database_servers.host', 'database_servers.port'])
}

/** A user row with its server's host and port: what a list row is. */
export type UserListRow = DatabaseUsersTable & { host: string; port: number }

export function findUserRow(db: Db, id: string): Promise<DatabaseUsersTable | undefined> {
  return tables(db).selectFrom('database_users').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function usernameTaken(db: Db, serverId: string, username: string): Promise<boolean> {
  const row = await tables(db)
    .selectFrom('database_users')
    .select('id')
    .where('server_id', '=', serverId)
    .where('username', '=', username)
    .executeTakeFirst()
  return row !== undefined
}

export async function insertUser(db: Db, row: DatabaseUsersTable): Promise<void> {
  await tables(db).insertInto('database_users').values(row).execute()
}

/** Changes a user; with `bump`, its revision goes up so the server must follow (a job applies it). */
export async function updateUser(
  db: Db,
  id: string,
  changes: Partial<Omit<DatabaseUsersTable, 'id' | 'customer_id' | 'created_at' | 'revision'>>,
  bump = false,
): Promise<DatabaseUsersTable> {
  let update = tables(db)
    .updateTable('database_users')
    .set({ ...changes, updated_at: nowIso() })
    .where('id', '=', id)
  if (bump) update = update.set((eb) => ({ revision: eb('revision', '+', 1) }))
  await update.execute()
  const row = await findUserRow(db, id)
  if (!row) throw new Error(`database user ${id} vanished while it was changed`)
  return row
}

export async function deleteUserRow(db: Db, id: string): Promise<void> {
  await tables(db).deleteFrom('database_grants').where('user_id', '=', id).execute()
  await tables(db).deleteFrom('database_users').where('id', '=', id).execute()
}

/** A customer's users in the given states. */
export function usersOfCustomer(db: Db, customerId: string, statuses: readonly string[]) {
  return tables(db)
    .selectFrom('database_users')
    .selectAll()
    .where('customer_id', '=', customerId)
    .where('status', 'in', statuses)
    .execute()
}

/** Users a site's application had made that are not already on their way out. */
export function usersOfSite(db: Db, siteId: string) {
  return tables(db)
    .selectFrom('database_users')
    .selectAll()
    .where('site_id', '=', siteId)
    .where('status', 'in', ['provisioning', 'active', 'failed'])
    .execute()
}

/** Active users on a server. */
export function activeUsersOn(db: Db, serverId: string) {
  return tables(db)
    .selectFrom('database_users')
    .selectAll()
    .where('server_id', '=', serverId)
    .where('status', '=', 'active')
    .execute()
}

/** The grants of each of `userIds`, in the API's form, by user. */
export async function grantsOf(db: Db, userIds: readonly string[]): Promise<Map<string, DatabaseGrant[]>> {
  const byUser = new Map<string, DatabaseGrant[]>(userIds.map((id) => [id, []]))
  if (userIds.length === 0) return byUser
  const rows = await tables(db)
    .selectFrom('database_grants')
    .selectAll()
    .where('user_id', 'in', userIds)
    .orderBy('database_id')
    .execute()
  for (const row of rows)
    byUser
      .get(row.user_id)
      ?.push({ databaseId: row.database_id, access: row.access as DatabaseGrant['access'] })
  return byUser
}

/** Replaces the grants of a user (both its rows and its JSON). */
export async function setGrantRows(db: Db, userId: string, grants: readonly DatabaseGrant[]): Promise<void> {
  await tables(db).deleteFrom('database_grants').where('user_id', '=', userId).execute()
  const sorted = grants.toSorted((a, b) => (a.databaseId < b.databaseId ? -1 : 1))
  await tables(db)
    .updateTable('database_users')
    .set({ grants: JSON.stringify(sorted.map(({ databaseId, access }) => ({ databaseId, access }))) })
    .where('id', '=', userId)
    .execute()
  if (grants.length === 0) return
  const rows: DatabaseGrantsTable[] = grants.map((grant) => ({
    user_id: userId,
    database_id: grant.databaseId,
    access: grant.access,
  }))
  await tables(db).insertInto('database_grants').values(rows).execute()
}

/** The ids of users granted on a database. */
export async function usersGrantedOn(db: Db, databaseId: string): Promise<string[]> {
  const rows = await tables(db)
    .selectFrom('database_grants')
    .select('user_id')
    .where('database_id', '=', databaseId)
    .execute()
  return rows.map((row) => row.user_id)
}

/** Removes every grant on a database (it is being deleted), from each user's JSON too. */
export async function deleteGrantsOn(db: Db, databaseId: string): Promise<void> {
  const users = await usersGrantedOn(db, databaseId)
  await tables(db).deleteFrom('database_grants').where('database_id', '=', databaseId).execute()
  for (const [userId, grants] of await grantsOf(db, users)) await setGrantRows(db, userId, grants)
}

// The periodic check

/**
 * Claims the periodic check when it is due: moves its next time on by `intervalMs` and answers true, for one
 * instance only when several share the store (the update's condition holds for the first). A new installation's
 * first check is due one interval after it first looked.
 */
export async function claimCheck(db: Db, intervalMs: number): Promise<boolean> {
  const now = new Date()
  const next = new Date(now.getTime() + intervalMs).toISOString()
  const existing = await tables(db)
    .selectFrom('database_checks')
    .selectAll()
    .where('id', '=', 'check')
    .executeTakeFirst()
  if (!existing) {
    await tables(db)
      .insertInto('database_checks')
      .values({ id: 'check', next_at: next })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute()
    return false
  }
  if (existing.next_at > now.toISOString()) return false
  const result = await tables(db)
    .updateTable('database_checks')
    .set({ next_at: next })
    .where('id', '=', 'check')
    .where('next_at', '=', existing.next_at)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}
