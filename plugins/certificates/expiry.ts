// The daily expiry check: certificates become `expiring` 30 days before `notAfter` and `expired` after it, each
// notice (30, 14 and 7 days before) is sent once per validity, and ACME certificates due are renewed.

import type { JobDefinition, JobRun, PluginContext } from '../../core/index.ts'
import { certificateJobKinds, emitCertificate } from './lifecycle.ts'
import type { CertificatesTable } from './migrations.ts'
import {
  certificatesEndingBefore,
  expiringWithinMs,
  findCertificateRow,
  statusAt,
  updateCertificate,
} from './repository.ts'

const day = 86_400_000
/** The notices, largest first: each is sent once, when fewer days than it are left. */
export const expiryNotices = [30, 14, 7] as const
/** How long after starting (or failing) a renewal the check starts another. */
const renewalPauseMs = 12 * 3_600_000

/** The notice due for a certificate with `msLeft` to go that has had `notified` (the smallest sent), or null. */
export function noticeDue(msLeft: number, notified: number | null): (typeof expiryNotices)[number] | null {
  let due: (typeof expiryNotices)[number] | null = null
  for (const days of expiryNotices) if (msLeft <= days * day) due = days
  return due !== null && (notified === null || due < notified) ? due : null
}

/** What the check needs beyond the plugin's context. */
export interface ExpiryOptions {
  readonly now: () => Date
  /** Starts an ACME certificate's renewal (in the check's transaction); false when ACME is off. */
  readonly renew: ((trx: Parameters<JobRun['audit']>[0], row: CertificatesTable) => Promise<void>) | false
}

/** The job definition. */
export function expiryJob(context: PluginContext, options: ExpiryOptions): JobDefinition {
  async function check(job: JobRun, id: string, now: Date): Promise<string[]> {
    return job.transaction(async (trx) => {
      const row = await findCertificateRow(trx, id)
      if (!row?.not_after || (row.status !== 'active' && row.status !== 'expiring')) return []
      const done: string[] = []
      const status = statusAt(row.not_after, now)
      let current = row
      if (status !== row.status) {
        current = await updateCertificate(trx, id, { status })
        await job.audit(trx, {
          action: `certificate.${status === 'expired' ? 'expire' : 'mark_expiring'}`,
          subject: { type: 'certificate', id },
          customerId: row.customer_id,
          details: { from: row.status, to: status, notAfter: row.not_after },
        })
        if (status === 'expired') {
          await emitCertificate(trx, job, current, 'certificate.expired')
          done.push('expired')
        }
      }
      const msLeft = Date.parse(row.not_after) - now.getTime()
      const notice = status === 'expired' ? null : noticeDue(msLeft, row.notified_days)
      if (notice !== null) {
        current = await updateCertificate(trx, id, { notified_days: notice }, 'bookkeeping')
        await emitCertificate(trx, job, current, 'certificate.expiring', {
          daysLeft: Math.floor(msLeft / day),
          threshold: notice,
        })
        done.push(`notice ${notice}`)
      }
      const renewable =
        options.renew &&
        current.source === 'acme' &&
        current.issuing_job === null &&
        msLeft <= expiringWithinMs &&
        (current.renew_after === null || current.renew_after <= now.toISOString())
      if (renewable && options.renew) {
        await updateCertificate(
          trx,
          id,
          { renew_after: new Date(now.getTime() + renewalPauseMs).toISOString() },
          'bookkeeping',
        )
        await options.renew(trx, current)
        done.push('renewal started')
      }
      return done
    })
  }

  return {
    kind: certificateJobKinds.expiry,
    description:
      'Marks certificates `expiring` (30 days before `notAfter`) and `expired`, sends `certificate.expiring` at 30, 14 and 7 days and `certificate.expired`, and renews ACME certificates due.',
    maxAttempts: 1,
    timeoutMs: 600_000,
    async run(job) {
      const now = options.now()
      const due = await certificatesEndingBefore(context.db, new Date(now.getTime() + expiringWithinMs))
      const outcomes: Record<string, number> = {}
      for (const [index, row] of due.entries()) {
        if (job.signal.aborted) break
        for (const outcome of await check(job, row.id, now)) outcomes[outcome] = (outcomes[outcome] ?? 0) + 1
        if (index % 100 === 99) await job.progress(Math.round((index / due.length) * 100), 'checking')
      }
      return { checked: due.length, ...outcomes }
    },
  }
}
