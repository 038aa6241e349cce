// The site state machine: which state may follow which, and the one way a site moves between them (state, job on
// its node, audit entry, `site.updated`), shared by the routes, the suspension handler and the jobs.

import { type AuditInput, type EventInput, type JobRequest, Problem, type Trx } from '../../core/index.ts'
import type { siteStatuses } from './contract.ts'
import type { SitesTable } from './migrations.ts'
import { sitesProblems } from './problems.ts'
import { toSite, updateSite } from './repository.ts'

export type SiteStatus = (typeof siteStatuses)[number]

/**
 * The legal transitions (docs/sites.md has the same table). `deleting` ends with the site gone; `failed` is where
 * a provisioning that failed for good lands (its `error` says why), and is provisioned again by a retry or deleted.
 * A `provisioning` site lands `suspended` when a hold covers it by the time it is ready; one deleted while
 * provisioning has its provisioning cancelled.
 */
export const siteTransitions: Readonly<Record<SiteStatus, readonly SiteStatus[]>> = {
  provisioning: ['active', 'suspended', 'failed', 'deleting'],
  active: ['suspended', 'deleting'],
  suspended: ['active', 'deleting'],
  failed: ['provisioning', 'deleting'],
  deleting: [],
}

/** Whether a site may go from `from` to `to`. */
export function canTransition(from: SiteStatus, to: SiteStatus): boolean {
  return siteTransitions[from].includes(to)
}

/** The 409 `illegal_site_transition` for a move from `from` to `to`, naming both states. */
export function illegalTransition(from: SiteStatus, to: SiteStatus): Problem {
  return new Problem(sitesProblems.illegal_site_transition, {
    detail: `A site that is ${from} cannot become ${to}.`,
    extensions: { currentStatus: from, requestedStatus: to },
  })
}

/** Refuses an illegal transition with 409 `illegal_site_transition`, naming both states. */
export function assertTransition(from: SiteStatus, to: SiteStatus): void {
  if (!canTransition(from, to)) throw illegalTransition(from, to)
}

/**
 * Who a move is written as: a route handler's writers (the caller), or a hold's (the holder's requester), or a
 * job's (the installation).
 */
export interface SiteWriters {
  enqueueJob(trx: Trx, job: JobRequest): Promise<string>
  audit(trx: Trx, entry: AuditInput): Promise<void>
  emit(trx: Trx, event: EventInput): Promise<void>
}

/** One move of a site. */
export interface SiteMove {
  readonly to: SiteStatus
  /** The job that applies the move on the site's node; null when the job already working on the site carries on. */
  readonly jobKind: string | null
  /** The input of that job (a deletion names the provisioning it waits for). */
  readonly jobInput?: Readonly<Record<string, unknown>>
  /** The audit action: `site.suspend`. */
  readonly action: string
  /** Other columns that change with the move (the staff suspension reason). */
  readonly changes?: Partial<
    Pick<SitesTable, 'suspended_by_staff' | 'error_code' | 'error_message' | 'error_job_id'>
  >
  /** More audit details (`reason`). */
  readonly details?: Readonly<Record<string, unknown>>
}

/**
 * Moves a site in `trx`: checked against the state machine (409 `illegal_site_transition`), with the job that
 * applies it on the node, its audit entry and `site.updated`. Answers the row after the move.
 */
export async function moveSite(
  trx: Trx,
  writers: SiteWriters,
  row: SitesTable,
  move: SiteMove,
): Promise<SitesTable> {
  assertTransition(row.status as SiteStatus, move.to)
  const jobId =
    move.jobKind === null
      ? row.job_id
      : await writers.enqueueJob(trx, {
          kind: move.jobKind,
          customerId: row.customer_id,
          subject: { type: 'site', id: row.id },
          ...(move.jobInput ? { input: move.jobInput } : {}),
        })
  const moved = await updateSite(trx, row.id, { ...move.changes, status: move.to, job_id: jobId })
  await writers.audit(trx, {
    action: move.action,
    subject: { type: 'site', id: row.id },
    customerId: row.customer_id,
    details: { from: row.status, to: move.to, ...move.details },
  })
  await writers.emit(trx, { kind: 'site.updated', customerId: row.customer_id, data: toSite(moved) })
  return moved
}
