// The jobs table: background work, its state and lease.

export interface JobsTable {
  id: string
  kind: string
  /** queued, running, succeeded, failed, cancelled. */
  status: string
  customer_id: string | null
  subject_type: string
  subject_id: string
  /** JSON object. */
  input: string
  /** JSON object the handler returned, once succeeded. */
  result: string | null
  /** JSON `{ code, message }` of the last failure. */
  error: string | null
  progress: number
  step: string | null
  attempts: number
  max_attempts: number
  /** Not before this time (retries back off). */
  run_after: string
  /** The worker holding the job while it runs, and until when; an expired lease is taken over. */
  lease_owner: string | null
  lease_until: string | null
  cancel_requested: number
  requested_by_user_id: string | null
  requested_by_token_id: string | null
  request_id: string | null
  created_at: string
  updated_at: string
  started_at: string | null
  finished_at: string | null
  /** The lane it runs in (its kind's `lane.name`), `''` for the shared pool. */
  lane: string
  /** 1 when its kind goes ahead of customer work (`priority: 'urgent'`), else 0. */
  urgent: number
  /**
   * Its place in the lane's round between customers (job-claim.ts): the lowest due turn is claimed first. -1 until
   * it is due and placed (a scheduled job, a retry waiting for its time).
   */
  turn: number
}

/** A line a job reported as it ran (`run.output`), numbered from 1 within the job. */
export interface JobOutputTable {
  job_id: string
  seq: number
  /** `stdout`, `stderr`, or `notice` (the kernel's own: the job's output was cut at its limit). */
  stream: string
  line: string
  at: string
}

/** For `db.withTables<JobTables>()` (a type alias: Kysely needs an index-compatible type). */
export type JobTables = {
  jobs: JobsTable
  job_output: JobOutputTable
}
