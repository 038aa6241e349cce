// The job queue in the store: enqueue in the caller's transaction, renew a claimed job's lease, and finish it. Claims,
// and the turns that share a lane between customers, are in job-claim.ts.

import { sql } from 'kysely'
import { newId } from '../ids/ids.ts'
import { noticeOnCommit } from '../store/notices.ts'
import { preparedInsert } from '../store/prepared-query.ts'
import type { Db, Trx } from '../store/store.ts'
import type { JobRequest, JobStatus } from './job-definition.ts'
import type { Job } from './job-schema.ts'
import type { JobsTable, JobTables } from './job-tables.ts'

const jobs = (db: Db) => db.withTables<JobTables>()

const insertJobRow = preparedInsert<JobsTable>('jobs', [
  'id',
  'kind',
  'status',
  'customer_id',
  'subject_type',
  'subject_id',
  'input',
  'result',
  'error',
  'progress',
  'step',
  'attempts',
  'max_attempts',
  'run_after',
  'lease_owner',
  'lease_until',
  'cancel_requested',
  'requested_by_user_id',
  'requested_by_token_id',
  'request_id',
  'created_at',
  'updated_at',
  'started_at',
  'finished_at',
  'lane',
  'urgent',
  'turn',
])

/** The channel every instance's workers listen on: a job was enqueued (`store.listen`). */
export const jobsChannel = 'jobs'

/** The channel a cancel of a running job is told on, once it commits: the worker running it aborts it then. */
export const jobCancelsChannel = 'jobs.cancels'

/** Who asked for a job: recorded for the audit entries its run writes. */
export interface JobRequester {
  readonly userId: string | null
  readonly tokenId: string | null
  readonly requestId: string | null
}

/** Inserts a queued job in `trx`, and tells every instance's workers once `trx` commits; returns its id. */
export async function insertJob(
  trx: Trx,
  job: JobRequest,
  options: {
    maxAttempts: number
    requester: JobRequester
    now: Date
    /** Its kind's lane (`''`: the shared pool) and whether it goes ahead of customer work there. */
    lane: string
    urgent: boolean
  },
): Promise<string> {
  const id = newId('job')
  const at = options.now.toISOString()
  await insertJobRow(trx, {
    id,
    kind: job.kind,
    status: 'queued',
    customer_id: job.customerId,
    subject_type: job.subject.type,
    subject_id: job.subject.id,
    input: JSON.stringify(job.input ?? {}),
    result: null,
    error: null,
    progress: 0,
    step: null,
    attempts: 0,
    max_attempts: options.maxAttempts,
    run_after: job.runAt && job.runAt > options.now ? job.runAt.toISOString() : at,
    lease_owner: null,
    lease_until: null,
    cancel_requested: 0,
    requested_by_user_id: options.requester.userId,
    requested_by_token_id: options.requester.tokenId,
    request_id: options.requester.requestId,
    created_at: at,
    updated_at: at,
    started_at: null,
    finished_at: null,
    lane: options.lane,
    urgent: options.urgent ? 1 : 0,
    // Placed in its lane's round when a claim first finds it due (job-claim.ts): nothing here reads other jobs,
    // so enqueues at once never conflict with each other.
    turn: -1,
  })
  await noticeOnCommit(trx, jobsChannel)
  return id
}

/** The job row with this id, or undefined. */
export function findJobRow(db: Db, id: string): Promise<JobsTable | undefined> {
  return jobs(db).selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst()
}

/**
 * Whether job `id` is still to run or running (`queued`, `running`): a plugin whose resource names the job working on
 * it asks before another job takes the resource over. False for a job that ended, or none.
 */
export async function jobIsLive(db: Db, id: string): Promise<boolean> {
  const row = await jobs(db).selectFrom('jobs').select('status').where('id', '=', id).executeTakeFirst()
  return row?.status === 'queued' || row?.status === 'running'
}

/** A job as one waiting on it sees it: whether it is still to run or running, and why its last attempt failed. */
export interface JobStanding {
  readonly live: boolean
  /** `{ code, message }` of its last failed attempt, while it tries again or once it gave up; else null. */
  readonly trouble: { readonly code: string; readonly message: string } | null
}

/** How job `id` stands, in one read (an unknown job: not live, no trouble). */
export async function jobStanding(db: Db, id: string): Promise<JobStanding> {
  const row = await jobs(db)
    .selectFrom('jobs')
    .select(['status', 'error'])
    .where('id', '=', id)
    .executeTakeFirst()
  const live = row?.status === 'queued' || row?.status === 'running'
  if (!row?.error || row.status === 'succeeded' || row.status === 'cancelled') return { live, trouble: null }
  const { code, message } = JSON.parse(row.error) as { code?: string; message?: string }
  return { live, trouble: { code: code ?? 'job_error', message: message ?? '' } }
}

/**
 * Why a job's last attempt failed (`{ code, message }`), while it tries again or once it gave up; null when it has
 * not failed one, succeeded or was cancelled: what a caller waiting on it can tell its own user.
 */
export async function jobTrouble(db: Db, id: string): Promise<JobStanding['trouble']> {
  return (await jobStanding(db, id)).trouble
}

/**
 * Extends the lease of a job `owner` holds, optionally recording progress. Returns whether the owner still holds
 * it, and whether a cancel was asked for.
 */
export async function renewLease(
  db: Db,
  id: string,
  owner: string,
  leaseUntil: Date,
  progress?: { percent: number; step: string },
): Promise<{ held: boolean; cancelRequested: boolean }> {
  const result = await jobs(db)
    .updateTable('jobs')
    .set({
      lease_until: leaseUntil.toISOString(),
      updated_at: new Date().toISOString(),
      ...(progress ? { progress: progress.percent, step: progress.step } : {}),
    })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'running')
    .executeTakeFirst()
  if (Number(result.numUpdatedRows) === 0) return { held: false, cancelRequested: false }
  const row = await jobs(db)
    .selectFrom('jobs')
    .select('cancel_requested')
    .where('id', '=', id)
    .executeTakeFirst()
  return { held: true, cancelRequested: row?.cancel_requested === 1 }
}

/** What a run ended with. */
export type JobOutcome =
  | { readonly status: 'succeeded'; readonly result: Readonly<Record<string, unknown>> }
  | { readonly status: 'failed' | 'cancelled'; readonly error: { code: string; message: string } }
  | { readonly status: 'queued'; readonly error: { code: string; message: string }; readonly runAfter: Date }

/**
 * Ends `owner`'s lease of a job it gave up without finishing (shutdown), so any worker may claim it at once;
 * `unrun` (claimed as the pool stopped, never run) takes back the attempt the claim counted. Returns whether it
 * still held the job.
 */
export async function releaseLease(
  db: Db,
  id: string,
  owner: string,
  how: { unrun: boolean } = { unrun: false },
): Promise<boolean> {
  // Long past, not now: a claim on another instance a moment later (or with its clock behind) must see it lapsed.
  const result = await jobs(db)
    .updateTable('jobs')
    .set({
      lease_until: new Date(0).toISOString(),
      updated_at: new Date().toISOString(),
      // Claimed but never run: the claim's attempt did not happen.
      ...(how.unrun ? { attempts: sql<number>`attempts - 1` } : {}),
    })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'running')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/**
 * Records the end of a run in `trx`, only if `owner` still holds the job (a worker that lost its lease must not
 * overwrite the run that took over). Returns whether it did.
 */
export async function finishRun(
  trx: Trx,
  id: string,
  owner: string,
  outcome: JobOutcome,
  now: Date,
): Promise<boolean> {
  const at = now.toISOString()
  const final = outcome.status !== 'queued'
  const result = await jobs(trx)
    .updateTable('jobs')
    .set({
      status: outcome.status,
      lease_owner: null,
      lease_until: null,
      updated_at: at,
      ...(outcome.status === 'succeeded'
        ? { result: JSON.stringify(outcome.result), progress: 100, error: null }
        : { error: JSON.stringify(outcome.error) }),
      // A retry waits for its time unplaced, and then takes its customer's next turn like a new job.
      ...(outcome.status === 'queued' ? { run_after: outcome.runAfter.toISOString(), turn: -1 } : {}),
      ...(final ? { finished_at: at } : {}),
    })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'running')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Marks a queued job cancelled in `trx`; false when it is no longer queued. */
export async function cancelQueuedJob(trx: Trx, id: string, now: Date): Promise<boolean> {
  const at = now.toISOString()
  const result = await jobs(trx)
    .updateTable('jobs')
    .set({
      status: 'cancelled',
      error: JSON.stringify({ code: 'cancelled', message: 'Cancelled before it ran.' }),
      updated_at: at,
      finished_at: at,
    })
    .where('id', '=', id)
    .where('status', '=', 'queued')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Asks the worker running a job to stop it. */
export async function requestCancel(trx: Trx, id: string): Promise<void> {
  await jobs(trx)
    .updateTable('jobs')
    .set({ cancel_requested: 1, updated_at: new Date().toISOString() })
    .where('id', '=', id)
    .execute()
}

/** The API form of a row. */
export function toJob(row: JobsTable, cancellable: boolean): Job {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status as JobStatus,
    progress: row.progress,
    step: row.step,
    customerId: row.customer_id,
    subject: { type: row.subject_type, id: row.subject_id },
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    cancellable,
    cancelRequested: row.cancel_requested === 1,
    result: row.result === null ? null : (JSON.parse(row.result) as Record<string, unknown>),
    error: row.error === null ? null : (JSON.parse(row.error) as { code: string; message: string }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  }
}
