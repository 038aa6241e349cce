// One sync job at a time per database and per user: a job claims the row before it touches the server and lets go
// when it recorded the outcome or its attempt failed, so an older job never undoes on the server what a newer one
// did (a lock lifted, a database made again after it was dropped).

import { type Db, type JobRun, nowIso } from '../../core/index.ts'
import type { DatabasesTables } from './migrations.ts'

/** The tables whose rows sync jobs claim. */
type Claimed = 'databases' | 'database_users'

/** How long a claim holds without its job letting go: the job's timeout, after which the kernel gave it up too. */
export const claimMs = 120_000
/** How long a job waits for another's claim before its attempt fails (and is tried again later). */
const waitMs = 5_000

const tables = (db: Db) => db.withTables<DatabasesTables>()

/**
 * Claims row `id` of `table` for `job`: waits while another live job holds it, takes it over once that claim ran
 * out (its job crashed). Answers false when the row is gone; throws (the attempt fails) when the other job keeps it.
 */
export async function claim(job: JobRun, table: Claimed, id: string): Promise<boolean> {
  const deadline = Date.now() + waitMs
  for (;;) {
    const taken = await job.transaction(async (trx) => {
      const row = await tables(trx)
        .selectFrom(table)
        .select(['sync_job', 'sync_until'])
        .where('id', '=', id)
        .executeTakeFirst()
      if (!row) return 'gone'
      if (row.sync_job !== null && row.sync_job !== job.id && (row.sync_until ?? '') > nowIso()) return 'held'
      const until = new Date(Date.now() + claimMs).toISOString()
      await tables(trx)
        .updateTable(table)
        .set({ sync_job: job.id, sync_until: until })
        .where('id', '=', id)
        .execute()
      return 'mine'
    })
    if (taken !== 'held') return taken === 'mine'
    if (Date.now() > deadline)
      throw new Error('Another job is applying this resource on its server; trying again')
    await Bun.sleep(50)
    job.signal.throwIfAborted()
  }
}

/** Lets go of `job`'s claim on row `id` (after a failed attempt, so the next job need not wait for it to run out). */
export async function release(db: Db, table: Claimed, id: string, jobId: string): Promise<void> {
  await tables(db)
    .updateTable(table)
    .set({ sync_job: null, sync_until: null })
    .where('id', '=', id)
    .where('sync_job', '=', jobId)
    .execute()
}
