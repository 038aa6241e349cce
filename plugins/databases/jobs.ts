// The plugin's background work: one job per resource that makes the server match the panel, run again until the
// panel stops changing under it, so two runs racing each other, or a run repeated after a crash, end the same way.

import {
  type JobDefinition,
  JobFailure,
  type JobRun,
  type PluginContext,
  type Trx,
} from '../../core/index.ts'
import { runCheck } from './check.ts'
import type { Grant } from './engines/engine.ts'
import { databaseJobKinds, emitDatabase, emitUser, startUserSync, type Writers } from './lifecycle.ts'
import type { DatabaseServersTable, DatabaseUsersTable } from './migrations.ts'
import {
  databaseRowsOf,
  deleteDatabaseRow,
  deleteUserRow,
  findDatabaseRow,
  findServerRow,
  findUserRow,
  grantsOf,
  updateDatabase,
  updateUser,
  usersGrantedOn,
} from './repository.ts'
import { accessOf, type Engines, serverEngines } from './server-access.ts'
import { claim, release } from './sync-claims.ts'

/** How often a sync job reads the panel again after finding it changed while the server was being changed. */
const maxRounds = 5

/** The plugin's job definitions. */
export function databaseJobs(context: PluginContext, engines: Engines): JobDefinition[] {
  const engineOf = serverEngines(context, engines)
  const { secrets } = context

  /** A job's writers: the installation as the actor, its events through the job. */
  const writersOf = (job: JobRun): Writers => ({
    enqueueJob: context.enqueueJob,
    audit: (trx, entry) => job.audit(trx, entry),
    emit: (trx, event) => job.emit(trx, event),
  })

  async function serverOf(id: string): Promise<DatabaseServersTable> {
    const server = await findServerRow(context.db, id)
    if (!server) throw new JobFailure(`The database server ${id} does not exist`, 'server_missing')
    return server
  }

  /** Runs `work` holding the claim on row `id` of `table`; a failed attempt lets go of it. */
  async function claimed(
    job: JobRun,
    table: 'databases' | 'database_users',
    work: () => Promise<Record<string, unknown>>,
  ): Promise<Record<string, unknown>> {
    if (!(await claim(job, table, job.subject.id))) return { outcome: 'gone' }
    try {
      return await work()
    } catch (error) {
      await release(context.db, table, job.subject.id, job.id)
      throw error
    }
  }

  /** Makes database `id` exist on its server, or not once it is `deleting`; then records the outcome. */
  async function runDatabaseSync(job: JobRun): Promise<Record<string, unknown>> {
    const id = job.subject.id
    for (let round = 0; round < maxRounds; round++) {
      const row = await findDatabaseRow(context.db, id)
      if (!row) return { outcome: 'gone' }
      const server = await serverOf(row.server_id)
      const engine = engineOf(server)
      const access = accessOf(secrets, server)
      const wanted = row.status !== 'deleting'
      await job.progress(20, wanted ? 'creating the database' : 'dropping the database')
      if (wanted) await engine.createDatabase(access, row.name)
      else await engine.dropDatabase(access, row.name)
      await job.progress(80, 'recording')
      const settled = await job.transaction(async (trx) => {
        const now = await findDatabaseRow(trx, id)
        // Deleted meanwhile by another run, after this one made it: drop it again (below, next round).
        if (!now) return wanted ? 'again' : 'gone'
        if ((now.status === 'deleting') !== !wanted) return 'again'
        if (!wanted) {
          await deleteDatabaseRow(trx, id)
          await context.usage.adjust(trx, now.customer_id, 'databases', -1)
          if (now.size_bytes)
            await context.usage.adjust(trx, now.customer_id, 'databaseBytes', -Number(now.size_bytes))
          await emitDatabase(trx, writersOf(job), now, 'database.deleted')
          return 'dropped'
        }
        await release(trx, 'databases', id, job.id)
        if (now.status === 'provisioning' || now.status === 'failed') {
          const active = await updateDatabase(trx, id, { status: 'active' })
          await emitDatabase(trx, writersOf(job), active, 'database.updated')
          // Users granted on it before it existed get their grants now.
          for (const userId of await usersGrantedOn(trx, id)) await resync(trx, userId)
        }
        return 'created'
      })
      if (settled === 'gone' || settled === 'dropped' || settled === 'created') return { outcome: settled }
      // The row vanished after the database was made: make sure it is gone from the server too.
      if (!(await findDatabaseRow(context.db, id))) {
        await engine.dropDatabase(access, row.name)
        return { outcome: 'dropped' }
      }
    }
    throw new Error('The database kept changing while it was being synchronised; trying again')
  }

  /** Starts a user's sync job (a database it is granted on became available). */
  async function resync(trx: Trx, userId: string): Promise<void> {
    const user = await findUserRow(trx, userId)
    if (!user || user.status === 'deleting') return
    await startUserSync(trx, context.enqueueJob, user)
  }

  /** The grants of `row` as the server must hold them: on its active databases only, by real name. */
  async function wantedGrants(row: DatabaseUsersTable): Promise<Grant[]> {
    const grants = (await grantsOf(context.db, [row.id])).get(row.id) ?? []
    const databases = new Map(
      (
        await databaseRowsOf(
          context.db,
          grants.map((grant) => grant.databaseId),
        )
      ).map((db) => [db.id, db]),
    )
    return grants.flatMap((grant) => {
      const database = databases.get(grant.databaseId)
      return database?.status === 'active' ? [{ database: database.name, access: grant.access }] : []
    })
  }

  /** Makes user `id`'s login match the panel (or drops it once `deleting`); then records the outcome. */
  async function runUserSync(job: JobRun): Promise<Record<string, unknown>> {
    const id = job.subject.id
    let lastUsername: string | null = null
    for (let round = 0; round < maxRounds; round++) {
      const row = await findUserRow(context.db, id)
      if (!row) return { outcome: 'gone' }
      lastUsername = row.username
      const server = await serverOf(row.server_id)
      const engine = engineOf(server)
      const access = accessOf(secrets, server)
      const hosts = JSON.parse(row.allowed_hosts) as string[]
      if (row.status === 'deleting') {
        await job.progress(30, 'dropping the login')
        await engine.dropUser(access, row.username, hosts)
      } else {
        await job.progress(20, 'setting the password')
        // Made with the password when there is a new one (a login that failed to be made is made now), else set.
        if (row.pending_verifier !== null)
          await engine.createUser(access, row.username, secrets.open(row.pending_verifier), hosts)
        await job.progress(40, 'setting the hosts')
        await engine.setHosts(access, row.username, hosts)
        await job.progress(60, 'setting the grants')
        await engine.setGrants(access, row.username, await wantedGrants(row), hosts)
        await engine.setLocked(access, row.username, row.locked === 1, hosts)
      }
      await job.progress(90, 'recording')
      const settled = await job.transaction(async (trx) => {
        const now = await findUserRow(trx, id)
        if (!now) return 'vanished'
        if (now.revision !== row.revision) return 'again'
        if (now.status === 'deleting') {
          await deleteUserRow(trx, id)
          await emitUser(trx, writersOf(job), now, 'database_user.deleted')
          return 'dropped'
        }
        const changed = await updateUser(trx, id, {
          pending_verifier: null,
          status: 'active',
          drift: null,
          applied_revision: now.revision,
          sync_job: null,
          sync_until: null,
        })
        if (now.status !== 'active' || now.drift !== null)
          await emitUser(trx, writersOf(job), changed, 'database_user.updated')
        return 'applied'
      })
      if (settled === 'dropped' || settled === 'applied') return { outcome: settled }
      if (settled === 'vanished') {
        // Deleted by another run after this one applied it: the login must not outlive the user.
        await engine.dropUser(access, row.username, hosts)
        return { outcome: 'dropped' }
      }
    }
    throw new Error(
      `The database user ${lastUsername ?? id} kept changing while it was being synchronised; trying again`,
    )
  }

  return [
    {
      kind: databaseJobKinds.database,
      description:
        'Creates a database on its server (closed to all but its users), or drops it once it is deleted.',
      maxAttempts: 5,
      timeoutMs: 120_000,
      run: (job) => claimed(job, 'databases', () => runDatabaseSync(job)),
      async onGivenUp(trx, job) {
        const row = await findDatabaseRow(trx, job.subject.id)
        // A creation or a removal that gave up: `failed`, from where DELETE tries the removal again.
        if (row?.status !== 'provisioning' && row?.status !== 'deleting') return
        const failed = await updateDatabase(trx, row.id, { status: 'failed' })
        await emitDatabase(trx, writersOf(job), failed, 'database.updated')
      },
    },
    {
      kind: databaseJobKinds.user,
      description:
        'Makes a database login match the panel: created with its password, its hosts, its grants and lock; dropped once it is deleted.',
      maxAttempts: 5,
      timeoutMs: 120_000,
      run: (job) => claimed(job, 'database_users', () => runUserSync(job)),
      async onGivenUp(trx, job) {
        const row = await findUserRow(trx, job.subject.id)
        // A creation or a removal that gave up: `failed`, from where rotating the password makes the login again
        // and DELETE tries the removal again.
        if (row?.status !== 'provisioning' && row?.status !== 'deleting') return
        const failed = await updateUser(trx, row.id, { status: 'failed' })
        await emitUser(trx, writersOf(job), failed, 'database_user.updated')
      },
    },
    {
      kind: databaseJobKinds.check,
      description:
        'Measures every database’s size and compares every login’s grants on its server with the panel’s (drift).',
      maxAttempts: 1,
      timeoutMs: 600_000,
      run: (job) => runCheck(context, engines, job),
    },
  ]
}
