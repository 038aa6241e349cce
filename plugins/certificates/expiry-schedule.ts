// When the expiry check runs: each instance looks every minute (or sooner, for short intervals) whether it is
// due, and the one that claims it starts the job, so several instances sharing a store run it once.

import type { PluginContext } from '../../core/index.ts'
import { certificateJobKinds } from './lifecycle.ts'
import { claimExpiryCheck } from './repository.ts'

/** Starts looking for the check being due every `intervalMs`; answers how to stop. */
export function expirySchedule(context: PluginContext, intervalMs: number): () => void {
  const look = async () => {
    try {
      await context.transaction(async (trx) => {
        if (await claimExpiryCheck(trx, intervalMs))
          await context.enqueueJob(trx, {
            kind: certificateJobKinds.expiry,
            customerId: null,
            subject: { type: 'certificate', id: 'all' },
          })
      })
    } catch (error) {
      context.log.warn({ err: error }, 'could not schedule the certificate expiry check')
    }
  }
  const timer = setInterval(() => void look(), Math.min(intervalMs, 60_000))
  // A check is not a reason to keep the process alive.
  timer.unref?.()
  void look()
  return () => clearInterval(timer)
}
