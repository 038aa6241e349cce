// When the periodic check runs: each instance looks every minute (or sooner, for short intervals) whether the check
// is due, and the one that claims it starts the job, so several instances sharing a store run it once.

import type { JobRequest, PluginContext } from '../../core/index.ts'
import { databaseJobKinds } from './lifecycle.ts'
import { claimCheck } from './repository.ts'

/** The check's job: the installation's, about every server. */
export const checkJobRequest: JobRequest = {
  kind: databaseJobKinds.check,
  customerId: null,
  subject: { type: 'database_server', id: 'all' },
}

/** Starts looking for the check being due every `intervalMs`; answers how to stop. */
export function checkSchedule(context: PluginContext, intervalMs: number, job: JobRequest): () => void {
  const look = async () => {
    try {
      await context.transaction(async (trx) => {
        if (await claimCheck(trx, intervalMs)) await context.enqueueJob(trx, job)
      })
    } catch (error) {
      context.log.warn({ err: error }, 'could not schedule the database check')
    }
  }
  const timer = setInterval(() => void look(), Math.min(intervalMs, 60_000))
  // A check is not a reason to keep the process alive.
  timer.unref?.()
  void look()
  return () => clearInterval(timer)
}
