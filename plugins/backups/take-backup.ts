// Takes one backup row of a site on its node: the site's repository on the row's target, a readonly login and a
// scratch database for each of the site's databases (leased for the run, released after whatever happens), the
// site's record, the node's `backup` task read into the job, and the row ended `completed` or `failed`.

import { JobFailure, type JobRun, type PluginContext } from '../../core/index.ts'
import { databaseBackupAccess, type LeasedLogin, type SiteDatabaseRef } from '../databases/contract.ts'
import { nodeDirectory } from '../nodes/contract.ts'
import { siteDirectory } from '../sites/contract.ts'
import { completeBackup, type DumpedNames, failBackup, type OutcomeWriters } from './backup-outcomes.ts'
import { siteRecordParts } from './contract.ts'
import { leaseRefusal } from './lease-refusal.ts'
import type { BackupsTable } from './migrations.ts'
import type { DumpSource, VerifyPlan } from './node/protocol.ts'
import { type ProgressSpan, runOnNode } from './node-runs.ts'
import { targetById } from './repository.ts'
import { siteRecord } from './site-record.ts'
import { siteRepository } from './site-repository.ts'

/** Everyone's view: jobs act for whoever started them, whose access the route checked. */
const everyone = { kind: 'all' } as const

/** How much of each backup is checked after it is taken (plugin options). */
export const defaultVerifyPlan: VerifyPlan = { readDataPercent: 10, sampleFiles: 25 }

/** Takes backups for jobs: `take(job, row, span)` answers the completed row or throws the failure it recorded. */
export function backupTaker(context: PluginContext, verify: VerifyPlan) {
  const sites = context.use(siteDirectory)
  const nodes = context.use(nodeDirectory)
  const access = context.use(databaseBackupAccess)

  const writersOf = (job: JobRun): OutcomeWriters => ({
    emit: job.emit,
    audit: job.audit,
    usage: context.usage,
  })

  /** Fails the row with `code` and throws the job's failure with the same code. */
  async function fail(
    job: JobRun,
    writers: OutcomeWriters,
    row: BackupsTable,
    code: string,
    message: string,
  ): Promise<never> {
    await job.transaction((trx) => failBackup(trx, writers, row.id, { code, message }))
    throw new JobFailure(message, code)
  }

  /** Leases what the dump of each database needs; whatever was leased before a refusal is released. */
  async function leaseDumps(
    databases: readonly SiteDatabaseRef[],
    nodeId: string | null,
    leases: LeasedLogin[],
  ): Promise<DumpSource[]> {
    const sources: DumpSource[] = []
    for (const database of databases) {
      try {
        const login = await access.lease(database.id, 'readonly', nodeId)
        leases.push(login)
        const scratch = await access.scratch(database.id, nodeId)
        leases.push(scratch)
        sources.push({ databaseId: database.id, login: login.login, scratch: scratch.login })
      } catch (error) {
        throw new Error(`${database.id}: ${leaseRefusal(context, database.id, error)}`)
      }
    }
    return sources
  }

  return async function take(
    job: JobRun,
    row: BackupsTable,
    span: ProgressSpan = { from: 5, to: 95 },
    /**
     * Who records the outcome: the job's own in the backups plugin's jobs; the plugin's in another plugin's job (a
     * copy's, see site-copies.ts), which may emit only its own plugin's events.
     */
    writers: OutcomeWriters = writersOf(job),
  ): Promise<BackupsTable> {
    const site = await sites.find(context.db, everyone, row.site_id)
    if (!site || (site.status !== 'active' && site.status !== 'suspended'))
      return fail(
        job,
        writers,
        row,
        'site_unavailable',
        'The site is gone or not running: nothing was backed up.',
      )
    const node = site.nodeId ? await nodes.find(site.nodeId) : null
    if (!node) return fail(job, writers, row, 'node_unreachable', 'The site has no node.')
    const target = await targetById(context.db, row.target_id)
    if (!target) return fail(job, writers, row, 'repository_unreachable', 'The backup’s target was removed.')
    await job.progress(span.from, 'opening the repository')
    const { spec } = await siteRepository(context, target, site, 'push')
    const databases = (await access.ofSite(context.db, site.id)).filter((db) => db.status === 'active')
    const names: DumpedNames = new Map(databases.map((db) => [db.id, { name: db.name, engine: db.engine }]))
    const leases: LeasedLogin[] = []
    try {
      let dumps: DumpSource[]
      try {
        dumps = await leaseDumps(databases, site.nodeId, leases)
      } catch (error) {
        return await fail(
          job,
          writers,
          row,
          'dump_failed',
          `A database of the site could not be read: ${messageOf(error)}`,
        )
      }
      const outcome = await runOnNode(
        nodes,
        node,
        site.id,
        {
          task: 'backup',
          backupId: row.id,
          repository: spec,
          files: true,
          databases: dumps,
          record: await siteRecord(
            context.db,
            site,
            databases,
            context.extensionPoint(siteRecordParts).list(),
          ),
          verify,
        },
        job,
        span,
      )
      if (!outcome.ok) return await fail(job, writers, row, outcome.code, outcome.message)
      if (outcome.task !== 'backup')
        return await fail(job, writers, row, 'failed', `The node answered a ${outcome.task} run to a backup.`)
      const completed = await job.transaction((trx) => completeBackup(trx, writers, row.id, outcome, names))
      if (!completed)
        throw new JobFailure('The backup ended elsewhere while it was taken.', 'backup_interrupted')
      return completed
    } finally {
      await Promise.all(leases.map((lease) => lease.release().catch(() => {})))
    }
  }
}

/** An error's message without its stack. */
function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
