// The changes that start work on a server, shared by the routes, the suspension handler and the site-deletion
// handler: each writes the panel's side in the caller's transaction, with its audit entry and event, and starts
// the one job that makes the server match (`database.sync`, `database_user.sync`).

import type { AuditInput, EventInput, JobRequest, Trx } from '../../core/index.ts'
import type { DatabasesTable, DatabaseUsersTable } from './migrations.ts'
import {
  deleteGrantsOn,
  findServerRow,
  findUserRow,
  toDatabase,
  toUser,
  updateDatabase,
  updateUser,
  usersGrantedOn,
} from './repository.ts'

/** The plugin's job kinds. */
export const databaseJobKinds = {
  /** Makes a database on its server match the panel: created while it lives, dropped once `deleting`. */
  database: 'database.sync',
  /** Makes a login match the panel: password, hosts, grants, lock; dropped once `deleting`. */
  user: 'database_user.sync',
  /** Measures sizes and compares grants on every server (periodic). */
  check: 'databases.check',
} as const

/**
 * Who a change is written as: a route handler's writers (the caller), a hold's (its requester), or the
 * installation's (jobs, event handlers).
 */
export interface Writers {
  enqueueJob(trx: Trx, job: JobRequest): Promise<string>
  audit(trx: Trx, entry: AuditInput): Promise<void>
  emit(trx: Trx, event: EventInput): Promise<void>
}

/** Starts the job that makes the server follow database `row`, and records it on the row. */
export async function startDatabaseSync(
  trx: Trx,
  enqueueJob: Writers['enqueueJob'],
  row: DatabasesTable,
): Promise<DatabasesTable> {
  const jobId = await enqueueJob(trx, {
    kind: databaseJobKinds.database,
    customerId: row.customer_id,
    subject: { type: 'database', id: row.id },
  })
  return updateDatabase(trx, row.id, { job_id: jobId })
}

/** Changes a user (`changes`), moves its revision on and starts the job that makes the server follow. */
export async function startUserSync(
  trx: Trx,
  enqueueJob: Writers['enqueueJob'],
  row: DatabaseUsersTable,
  changes: Partial<Omit<DatabaseUsersTable, 'id' | 'customer_id' | 'created_at' | 'revision'>> = {},
): Promise<DatabaseUsersTable> {
  const jobId = await enqueueJob(trx, {
    kind: databaseJobKinds.user,
    customerId: row.customer_id,
    subject: { type: 'database_user', id: row.id },
  })
  return updateUser(trx, row.id, { ...changes, job_id: jobId }, true)
}

/**
 * Changes a user (`changes`), moves its revision on and starts the job that makes the server follow, with the
 * audit entry `action` and `database_user.updated`.
 */
export async function changeUser(
  trx: Trx,
  writers: Writers,
  row: DatabaseUsersTable,
  change: {
    readonly changes: Partial<Omit<DatabaseUsersTable, 'id' | 'customer_id' | 'created_at' | 'revision'>>
    readonly action: string
    readonly details?: Readonly<Record<string, unknown>>
  },
): Promise<DatabaseUsersTable> {
  const changed = await startUserSync(trx, writers.enqueueJob, row, change.changes)
  await writers.audit(trx, {
    action: change.action,
    subject: { type: 'database_user', id: row.id },
    customerId: row.customer_id,
    ...(change.details ? { details: change.details } : {}),
  })
  await emitUser(trx, writers, changed, 'database_user.updated')
  return changed
}

/** Puts `kind` with the user as the API shows it (its server's host and port included) in the outbox. */
export async function emitUser(
  trx: Trx,
  writers: Pick<Writers, 'emit'>,
  row: DatabaseUsersTable,
  kind: string,
): Promise<void> {
  await writers.emit(trx, { kind, customerId: row.customer_id, data: toUser(row, await serverOf(trx, row)) })
}

/** Puts `kind` with the database as the API shows it (its server's host and port included) in the outbox. */
export async function emitDatabase(
  trx: Trx,
  writers: Pick<Writers, 'emit'>,
  row: DatabasesTable,
  kind: string,
): Promise<void> {
  await writers.emit(trx, {
    kind,
    customerId: row.customer_id,
    data: toDatabase(row, await serverOf(trx, row)),
  })
}

/** Where the server of a database or user is (a server is never removed while it holds any). */
async function serverOf(trx: Trx, row: { readonly server_id: string }) {
  return (await findServerRow(trx, row.server_id)) ?? { host: '', port: 0 }
}

/**
 * Starts deleting a database: `deleting`, its grants revoked (each granted user's job takes them off the server),
 * and its job drops it. `action` is the audit action (`database.delete`), `details` its reason.
 */
export async function startDatabaseDeletion(
  trx: Trx,
  writers: Writers,
  row: DatabasesTable,
  details: Readonly<Record<string, unknown>> = {},
): Promise<DatabasesTable> {
  const granted = await usersGrantedOn(trx, row.id)
  await deleteGrantsOn(trx, row.id)
  for (const userId of granted) {
    const user = await findUserRow(trx, userId)
    if (!user || user.status === 'deleting') continue
    await changeUser(trx, writers, user, {
      changes: {},
      action: 'database_user.revoke',
      details: { databaseId: row.id, reason: 'database deleted' },
    })
  }
  const moved = await startDatabaseSync(
    trx,
    writers.enqueueJob,
    await updateDatabase(trx, row.id, { status: 'deleting' }),
  )
  await writers.audit(trx, {
    action: 'database.delete',
    subject: { type: 'database', id: row.id },
    customerId: row.customer_id,
    details: { name: row.name, from: row.status, ...details },
  })
  await emitDatabase(trx, writers, moved, 'database.updated')
  return moved
}

/** Starts deleting a user: `deleting`, and its job drops the login. */
export async function startUserDeletion(
  trx: Trx,
  writers: Writers,
  row: DatabaseUsersTable,
  details: Readonly<Record<string, unknown>> = {},
): Promise<DatabaseUsersTable> {
  return changeUser(trx, writers, row, {
    changes: { status: 'deleting' },
    action: 'database_user.delete',
    details: { username: row.username, from: row.status, ...details },
  })
}
