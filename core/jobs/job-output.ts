// The output lines a job reports as it runs (`run.output`): kept in the `job_output` table, bounded per job, written
// in small batches so a chatty command costs a few inserts a second, not one per line.

import type { Db, Store } from '../store/store.ts'
import { type JobOutputStream, jobOutputLimits } from './job-definition.ts'
import type { JobOutputTable, JobTables } from './job-tables.ts'

/** How often reported lines are written. */
const flushEveryMs = 100

/** A job run's output: `add` reports a line, `flush` writes what is pending (the runner's last call before the end). */
export interface JobOutputWriter {
  add(line: string, stream?: JobOutputStream): void
  flush(): Promise<void>
}

/** The next free line number of job `jobId` (a retry continues after the earlier attempts' lines). */
async function nextSeq(db: Db, jobId: string): Promise<number> {
  const row = await db
    .withTables<JobTables>()
    .selectFrom('job_output')
    .select((eb) => eb.fn.max('seq').as('last'))
    .where('job_id', '=', jobId)
    .executeTakeFirst()
  return Number(row?.last ?? 0) + 1
}

/** The output writer of one run of job `jobId`; failures to write are passed to `failed` (the job goes on). */
export function jobOutputWriter(
  store: Store,
  jobId: string,
  failed: (error: unknown) => void,
): JobOutputWriter {
  let pending: Omit<JobOutputTable, 'seq'>[] = []
  let seq: number | null = null
  let timer: ReturnType<typeof setTimeout> | undefined
  let writing: Promise<void> = Promise.resolve()
  let cut = false

  async function write(): Promise<void> {
    const batch = pending
    pending = []
    if (batch.length === 0) return
    seq ??= await nextSeq(store.db, jobId)
    const rows: JobOutputTable[] = []
    for (const line of batch) {
      if (seq > jobOutputLimits.lines) {
        if (!cut) {
          cut = true
          rows.push({ ...line, seq: seq++, stream: 'notice', line: 'Output cut: later lines are not kept.' })
        }
        break
      }
      rows.push({ ...line, seq: seq++ })
    }
    if (rows.length > 0)
      await store.db.withTables<JobTables>().insertInto('job_output').values(rows).execute()
  }

  const flush = () => {
    clearTimeout(timer)
    timer = undefined
    writing = writing.then(write).catch(failed)
    return writing
  }

  return {
    add(line, stream = 'stdout') {
      if (cut) return
      const cutLine =
        line.length > jobOutputLimits.lineChars ? `${line.slice(0, jobOutputLimits.lineChars)}…` : line
      // PostgreSQL keeps no NUL in text: one in a line (a command printing a binary file) failed the whole batch.
      const text = cutLine.replaceAll('\0', '\uFFFD')
      pending.push({ job_id: jobId, stream, line: text, at: new Date().toISOString() })
      timer ??= setTimeout(() => void flush(), flushEveryMs)
    },
    flush,
  }
}

/** Lines of job `jobId` after line `after`, in order, at most `limit`. */
export function readJobOutput(db: Db, jobId: string, after: number, limit = 500) {
  return db
    .withTables<JobTables>()
    .selectFrom('job_output')
    .select(['seq', 'stream', 'line', 'at'])
    .where('job_id', '=', jobId)
    .where('seq', '>', after)
    .orderBy('seq')
    .limit(limit)
    .execute()
}
