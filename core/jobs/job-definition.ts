// Background work as plugins declare it: a job kind with the function that runs it, and what a run may do.

import type { AuditInput, EventInput } from '../plugin/records.ts'
import type { Trx } from '../store/store.ts'

/** The states of a job. `queued` and `running` are live; the others are final. */
export const jobStatuses = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const
export type JobStatus = (typeof jobStatuses)[number]

/** What the resource a job works on is. */
export interface JobSubject {
  readonly type: string
  readonly id: string
}

/** A job to start: its kind, whose it is and what it works on, and its input (JSON). */
export interface JobRequest {
  /** A kind some plugin declared: `site.provision`. */
  readonly kind: string
  /** The customer the job belongs to (tenancy); null for staff-only work. */
  readonly customerId: string | null
  readonly subject: JobSubject
  readonly input?: Readonly<Record<string, unknown>>
  /** Not before this time (a removal after a grace period). Default: as soon as the transaction commits. */
  readonly runAt?: Date
}

/** One run of a job, as its handler sees it. */
export interface JobRun<Input = Readonly<Record<string, unknown>>> {
  readonly id: string
  readonly kind: string
  readonly customerId: string | null
  readonly subject: JobSubject
  readonly input: Input
  /** 1 on the first run, higher on retries (or when a dead worker's job is taken up again). */
  readonly attempt: number
  /**
   * Aborted when the job is cancelled, runs past its timeout, or this worker lost its lease; the handler should
   * stop at the next step. Steps must be idempotent: a run may be repeated after a crash.
   */
  readonly signal: AbortSignal
  /** Reports progress (0-100) and the current step; also renews the lease. */
  progress(percent: number, step: string): Promise<void>
  /**
   * Reports a line of output (a command's), which the job's event stream (`GET /jobs/{id}/events`) carries as an
   * `output` event. Kept with the job, at most {@link jobOutputLimits}`.lines` lines of `lineChars` characters
   * each (longer lines are cut, later lines dropped, with a `notice` line saying so); written in batches, all of
   * them before the job's end is recorded. Never put secrets here: whoever may read the job reads its output.
   */
  output(line: string, stream?: JobOutputStream): void
  /** Runs work in one transaction. */
  transaction<T>(work: (trx: Trx) => Promise<T>): Promise<T>
  /** Writes an audit entry in `trx`; the actor is whoever started the job. */
  audit(trx: Trx, entry: AuditInput): Promise<void>
  /** Puts an event (of the plugin's declared kinds) in the outbox in `trx`. */
  emit(trx: Trx, event: EventInput): Promise<void>
}

/** Where a line of job output came from. */
export type JobOutputStream = 'stdout' | 'stderr'

/** How much output (`run.output`) a job keeps: lines, and characters per line. */
export const jobOutputLimits = { lines: 2000, lineChars: 4096 } as const

/** Whether a job kind goes ahead of customer work in its lane (see {@link JobDefinition.priority}). */
export type JobPriority = 'normal' | 'urgent'

/** A kind of job a plugin runs. */
export interface JobDefinition {
  /** `resource.verb`: `site.provision`. Unique in the panel. */
  readonly kind: string
  readonly description: string
  /** Whether `POST /jobs/{id}/cancel` may stop it (a queued job is dropped, a running one is aborted). */
  readonly cancellable?: boolean
  /** Runs before the job fails for good. Default 5. */
  readonly maxAttempts?: number
  /** How long one run may take before it is aborted and counted as a failed attempt. Default 10 minutes. */
  readonly timeoutMs?: number
  /**
   * Runs it in a pool of its own rather than the panel's shared one (`JOBS_CONCURRENCY`): for long work that
   * customers start at will (a site's commands), so it can never hold every worker of provisioning, suspensions and
   * the rest. Kinds naming the same lane share it; `concurrency` is its size on each panel instance.
   */
  readonly lane?: { readonly name: string; readonly concurrency: number }
  /**
   * `urgent` for work that protects the platform or its other customers (a suspension, a deletion): claimed before
   * every `normal` job of its lane, and when the lane is full of normal work it still starts at once, in a worker
   * each lane keeps for urgent work beyond its size on each instance. Customers still share urgent work fairly
   * between them. Never for work a customer can start at will to jump the queue. Default `normal`.
   */
  readonly priority?: JobPriority
  /**
   * Does the work; the value it resolves to is kept as the job's `result` (JSON). Throwing fails the attempt; a
   * {@link JobFailure} fails the job at once, without retries. The job's `error.code` is the code of what was thrown:
   * a `JobFailure`'s, a `Problem`'s, or any error's own snake_case `code` (a node that cannot be reached:
   * `node_unreachable`, tried again), else `job_error`.
   */
  run(job: JobRun): Promise<Readonly<Record<string, unknown>> | undefined>
  /**
   * Runs in the transaction that marks the job failed for good (after its last attempt) or cancelled, so the
   * resource can follow (a site whose provisioning failed becomes `failed`, saying why): `error` is the job's last
   * error (`cancelled` when it was cancelled).
   */
  onGivenUp?(
    trx: Trx,
    job: JobRun,
    outcome: 'failed' | 'cancelled',
    error: { readonly code: string; readonly message: string },
  ): Promise<void>
}

/** The lane jobs of `definition`'s kind run in: its `lane.name`, or `''` for the shared pool. */
export const laneOf = (definition: Pick<JobDefinition, 'lane'>): string => definition.lane?.name ?? ''

/** Thrown by a job handler for a failure that retrying cannot fix. */
export class JobFailure extends Error {
  constructor(
    message: string,
    /** A stable code for the job's `error.code`. */
    readonly code: string,
  ) {
    super(message)
    this.name = 'JobFailure'
  }
}

/**
 * Thrown by a job handler for a failure worth another attempt, with a stable code for the job's `error.code` (and
 * whatever the job's owner shows of it): a database still being made, a peer away for a while.
 */
export class JobAttemptFailure extends Error {
  constructor(
    message: string,
    /** A stable code for the job's `error.code`. */
    readonly code: string,
  ) {
    super(message)
    this.name = 'JobAttemptFailure'
  }
}
