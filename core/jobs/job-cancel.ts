// Cancelling a job, for `POST /jobs/{id}/cancel` and for plugins (a site deleted while it is provisioned): a queued
// job ends cancelled at once; a running one is asked to stop, and every instance hears of it when the request
// commits, so the worker running it aborts it then rather than at its next lease renewal.

import type { Store, Trx } from '../store/store.ts'
import { cancelQueuedJob, findJobRow, jobCancelsChannel, requestCancel } from './job-queue.ts'
import { emitJobFinished, jobRunOf, type RegisteredJob } from './job-runner.ts'
import type { JobsTable } from './job-tables.ts'

/** How a cancel went: ended at once, asked of its worker, or nothing to do (finished, or not cancellable). */
export type CancelOutcome =
  | { readonly outcome: 'cancelled'; readonly row: JobsTable }
  | { readonly outcome: 'requested'; readonly row: JobsTable }
  | { readonly outcome: 'finished' | 'not_cancellable'; readonly row: JobsTable | undefined }

/**
 * Cancels job `id` in `trx`: a queued one ends `cancelled` (its kind's `onGivenUp` runs, `job.finished` is sent); a
 * running one is asked to stop. Only kinds declared `cancellable`.
 */
export async function cancelJob(
  trx: Trx,
  store: Store,
  jobs: ReadonlyMap<string, RegisteredJob>,
  id: string,
): Promise<CancelOutcome> {
  const row = await findJobRow(trx, id)
  if (!row || (row.status !== 'queued' && row.status !== 'running')) return { outcome: 'finished', row }
  const registered = jobs.get(row.kind)
  if (!registered?.definition.cancellable) return { outcome: 'not_cancellable', row }
  if (row.status === 'queued' && (await cancelQueuedJob(trx, row.id, new Date()))) {
    const cancelled = await findJobRow(trx, row.id)
    if (!cancelled) throw new Error('A cancelled job vanished')
    const run = jobRunOf(cancelled, registered, store, {
      signal: AbortSignal.abort(),
      progress: async () => {},
    })
    await registered.definition.onGivenUp?.(trx, run, 'cancelled', {
      code: 'cancelled',
      message: 'Cancelled before it ran.',
    })
    await emitJobFinished(trx, cancelled, true)
    return { outcome: 'cancelled', row: cancelled }
  }
  await requestCancel(trx, row.id)
  await store.notify(trx, jobCancelsChannel)
  return { outcome: 'requested', row: (await findJobRow(trx, row.id)) ?? row }
}
