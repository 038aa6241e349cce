// The plugin's jobs: `staging.create` copies the live site into its new staging site, `staging.push` copies the
// staging site into its live site (chosen files and tables) after the live site's pre-restore backup. Both run the
// backups plugin's copy (its `siteCopies` service) and end with the staging row updated, audited, and their event.

import { type JobDefinition, type JobRun, nowIso, type PluginContext, type Trx } from '../../core/index.ts'
import { siteCopies } from '../backups/contract.ts'
import { siteDirectory } from '../sites/contract.ts'
import type { StagingPush } from './contract.ts'
import { stagingOf, toStaging, updateStaging } from './repository.ts'

export const createJobKind = 'staging.create'
export const pushJobKind = 'staging.push'

/** What `staging.create` is given. */
export interface CreateInput {
  readonly liveSiteId: string
  readonly stagingSiteId: string
}

/** What `staging.push` is given. */
export interface PushInput {
  readonly liveSiteId: string
  readonly stagingSiteId: string
  readonly files: boolean | readonly string[]
  readonly tables: boolean | readonly string[]
}

const lane = { name: 'staging', concurrency: 2 }

export function stagingJobs(context: PluginContext): JobDefinition[] {
  const copies = () => context.use(siteCopies)
  const sites = () => context.use(siteDirectory)

  /** Ends the job's staging row's work in `trx`: its status or last push, its audit entry and event. */
  async function ended(
    trx: Trx,
    job: JobRun,
    stagingSiteId: string,
    change: (row: NonNullable<Awaited<ReturnType<typeof stagingOf>>>) => Parameters<typeof updateStaging>[2],
    record: { action: string; event: string | null; details: Record<string, unknown> },
  ): Promise<void> {
    const row = await stagingOf(trx, stagingSiteId)
    if (!row || row.staging_site_id !== stagingSiteId) return
    await updateStaging(trx, stagingSiteId, change(row))
    const updated = await stagingOf(trx, stagingSiteId)
    if (!updated) return
    await job.audit(trx, {
      action: record.action,
      subject: { type: 'site', id: stagingSiteId },
      customerId: row.customer_id,
      details: record.details,
    })
    if (record.event)
      await job.emit(trx, {
        kind: record.event,
        customerId: row.customer_id,
        data: await toStaging(trx, sites(), updated),
      })
  }

  const pushOf = (row: { last_push_json: string | null }): StagingPush | null =>
    row.last_push_json ? (JSON.parse(row.last_push_json) as StagingPush) : null

  return [
    {
      kind: createJobKind,
      description:
        'Makes a live site’s staging copy: a fresh backup of the live site restored into its new staging site once provisioned (what its type keeps of its own kept, its URL moved to the staging domain, a WordPress copy hidden from search engines). Ends with `site.staged`.',
      cancellable: true,
      maxAttempts: 1,
      lane,
      timeoutMs: 6 * 60 * 60_000,
      async run(job) {
        const input = job.input as unknown as CreateInput
        const result = await copies().run(job, {
          fromSiteId: input.liveSiteId,
          intoSiteId: input.stagingSiteId,
          files: true,
          databases: true,
          tables: null,
          purpose: 'staging',
        })
        await job.transaction((trx) =>
          ended(trx, job, input.stagingSiteId, () => ({ status: 'ready' }), {
            action: 'staging.copy',
            event: 'site.staged',
            details: { liveSiteId: input.liveSiteId, backupId: result.sourceBackupId, finished: true },
          }),
        )
        return {
          stagingSiteId: input.stagingSiteId,
          liveSiteId: input.liveSiteId,
          backupId: result.sourceBackupId,
        }
      },
      async onGivenUp(trx, job, _outcome, error) {
        const input = job.input as unknown as CreateInput
        await copies().givenUp(trx, job, error)
        await ended(
          trx,
          job,
          input.stagingSiteId,
          () => ({ status: 'failed', error_code: error.code, error_message: error.message }),
          {
            action: 'staging.copy',
            event: null,
            details: { liveSiteId: input.liveSiteId, error: error.code },
          },
        )
      },
    },
    {
      kind: pushJobKind,
      description:
        'Pushes a staging copy to its live site: a backup of the staging site and a `pre-restore` backup of the live site, then the chosen files and tables restored into the live site (its own `wp-config.php` kept, the staging URL moved back to the live one, whether search engines index it kept). Its result names `undo`, the one call that puts the live site back. Ends with `site.pushed`.',
      cancellable: true,
      maxAttempts: 1,
      lane,
      timeoutMs: 6 * 60 * 60_000,
      async run(job) {
        const input = job.input as unknown as PushInput
        const result = await copies().run(job, {
          fromSiteId: input.stagingSiteId,
          intoSiteId: input.liveSiteId,
          files: input.files,
          databases: input.tables !== false,
          tables: Array.isArray(input.tables) ? input.tables : null,
          purpose: 'push',
        })
        await job.transaction((trx) =>
          ended(
            trx,
            job,
            input.stagingSiteId,
            (row) => {
              const push = pushOf(row)
              return push?.jobId === job.id
                ? {
                    last_push_json: JSON.stringify({
                      ...push,
                      status: 'succeeded',
                      undo: result.undo as StagingPush['undo'],
                      finishedAt: nowIso(),
                    } satisfies StagingPush),
                  }
                : {}
            },
            {
              action: 'staging.push',
              event: 'site.pushed',
              details: {
                liveSiteId: input.liveSiteId,
                files: input.files,
                tables: input.tables,
                preRestoreBackupId: result.preRestoreBackupId,
                finished: true,
              },
            },
          ),
        )
        return {
          stagingSiteId: input.stagingSiteId,
          liveSiteId: input.liveSiteId,
          files: input.files,
          tables: input.tables,
          databases: result.databases,
          preRestoreBackupId: result.preRestoreBackupId,
          undo: result.undo,
        }
      },
      async onGivenUp(trx, job, _outcome, error) {
        const input = job.input as unknown as PushInput
        await copies().givenUp(trx, job, error)
        await ended(
          trx,
          job,
          input.stagingSiteId,
          (row) => {
            const push = pushOf(row)
            return push?.jobId === job.id
              ? {
                  last_push_json: JSON.stringify({
                    ...push,
                    status: 'failed',
                    finishedAt: nowIso(),
                  } satisfies StagingPush),
                }
              : {}
          },
          {
            action: 'staging.push',
            event: null,
            details: { liveSiteId: input.liveSiteId, error: error.code },
          },
        )
      },
    },
  ]
}
