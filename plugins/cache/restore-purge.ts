// A site's whole page cache purged after a restore into it (a backup restored, a staging copy pushed to live, an undo:
// the backups plugin's `backup.restored`, when the installation has backups): files and tables changed under nginx,
// and no WordPress hook ran to purge what changed, so pages cached before would be served until their TTL. Only a
// site whose cache is on; the purge is a `cache.purge` job, so a node that does not answer fails nothing: the job
// tries again (five times, backing off), then gives up with a warning in the log. Audited `cache.purge` and emitted
// `cache.purged` as a purge through the API is, with the restore named.

import {
  type JobDefinition,
  JobFailure,
  type OutboxEvent,
  type PluginContext,
  type Trx,
} from '../../core/index.ts'
import { NodeRefusal, nodeDirectory } from '../nodes/contract.ts'
import { siteDirectory } from '../sites/contract.ts'
import { type CacheNodePurged, type CachePurge, cacheServiceName } from './contract.ts'
import { findSiteCache } from './repository.ts'

/** The job's kind. */
export const restorePurgeJobKind = 'cache.purge'

/** The event followed. */
export const restoredEventKind = 'backup.restored'

const everyone = { kind: 'all' } as const

/** What the job is given. */
interface RestorePurgeInput {
  readonly siteId: string
  /** The backup restored, and the restore's job. */
  readonly backupId: string | null
  readonly restoreJobId: string | null
}

/** Follows `backup.restored` when the installation has the backups plugin (an optional dependency). */
export function followRestores(context: PluginContext): void {
  if (!context.knownEvents().some((event) => event.kind === restoredEventKind)) return
  context.onEvent(restoredEventKind, (trx, event) => restored(context, trx, event))
}

/** A restore into a site whose cache is on starts the purge of its whole cache. */
export async function restored(context: PluginContext, trx: Trx, event: OutboxEvent): Promise<void> {
  const data = event.data as { id?: unknown; restore?: { siteId?: unknown; jobId?: unknown } }
  const siteId = data.restore?.siteId
  if (typeof siteId !== 'string') return
  const cache = await findSiteCache(trx, siteId)
  if (cache?.enabled !== 1) return
  const input: RestorePurgeInput = {
    siteId,
    backupId: typeof data.id === 'string' ? data.id : null,
    restoreJobId: typeof data.restore?.jobId === 'string' ? data.restore.jobId : null,
  }
  await context.enqueueJob(trx, {
    kind: restorePurgeJobKind,
    customerId: cache.customerId,
    subject: { type: 'site', id: siteId },
    input: { ...input },
  })
}

/** The purge job. */
export function restorePurgeJob(context: PluginContext): JobDefinition {
  return {
    kind: restorePurgeJobKind,
    description:
      'Purges every page of a site’s page cache after a restore into it (a backup restored, a staging copy pushed, an undo), when its cache is on. A node that does not answer is tried again; the purge is given up after five attempts.',
    maxAttempts: 5,
    timeoutMs: 60_000,
    async run(job) {
      const input = job.input as unknown as RestorePurgeInput
      const site = await context.use(siteDirectory).find(context.db, everyone, input.siteId)
      // Turned off, deleted or not running since: nothing to purge (turning it on again empties it first).
      if ((await findSiteCache(context.db, input.siteId))?.enabled !== 1) return { skipped: 'cache_off' }
      if (site?.status !== 'active' || !site.nodeId) return { skipped: 'site_not_running' }
      const nodes = context.use(nodeDirectory)
      const node = await nodes.find(site.nodeId)
      if (!node) return { skipped: 'site_not_running' }
      let purged: CacheNodePurged
      try {
        purged = (await nodes.call(
          node,
          { siteId: site.id, service: cacheServiceName, request: { op: 'purge' } },
          AbortSignal.any([job.signal, AbortSignal.timeout(30_000)]),
        )) as CacheNodePurged
      } catch (error) {
        if (error instanceof NodeRefusal) throw new JobFailure(error.message, error.code)
        throw error
      }
      const purge: CachePurge = {
        siteId: site.id,
        customerId: site.customerId,
        paths: null,
        removed: purged.removed,
      }
      await job.transaction(async (trx) => {
        await job.audit(trx, {
          action: 'cache.purge',
          subject: { type: 'site', id: site.id },
          customerId: site.customerId,
          details: {
            paths: null,
            removed: purged.removed,
            reason: 'restored',
            backupId: input.backupId,
            restoreJobId: input.restoreJobId,
          },
        })
        await job.emit(trx, { kind: 'cache.purged', customerId: site.customerId, data: purge })
      })
      return { ...purge }
    },
    async onGivenUp(_trx, job, outcome, error) {
      const input = job.input as unknown as RestorePurgeInput
      context.log.warn(
        { siteId: input.siteId, outcome, code: error.code, message: error.message },
        'the page cache was not purged after a restore: pages cached before are served until their TTL',
      )
    },
  }
}
