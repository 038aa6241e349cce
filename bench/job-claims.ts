// What a job claim costs behind a large backlog, on both engines (docs/performance.md quotes it):
// `bun bench/job-claims.ts` (`BENCH_STORE=sqlite|postgres|both`, default both; DATABASE_URL, default the machine's
// test server, where a schema is made for the run and dropped after it). One lane holds 100k queued jobs, unplaced as
// if just enqueued: 50k of one customer, 50k of 1,000 others (50 each, some the platform's own), behind 200k
// finished jobs, with 8 of the heavy customer's running. The first claim places the whole backlog (the one-off cost
// of a burst); then 1,000 claims, each finished at once as a worker would, are timed one by one: median and p99,
// and whose jobs they took (the heavy customer, over its share, only when nobody else waits). On PostgreSQL, 1,000
// more after a vacuum.

import { sql } from 'kysely'
import postgres from 'postgres'
import { createPanel, jsonLinesLogger, newId, openPostgresStore, openSqliteStore } from '../core/host.ts'
import { claimNextJob, placeDueJobs } from '../core/jobs/job-claim.ts'
import type { JobsTable, JobTables } from '../core/jobs/job-tables.ts'
import type { Store } from '../core/store/store.ts'

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const engines =
  (process.env.BENCH_STORE ?? 'both') === 'both' ? ['sqlite', 'postgres'] : [process.env.BENCH_STORE]
const claims = Number(process.env.CLAIMS ?? 1_000)
const lane = 'exec'
const kind = 'site.exec'
const heavy = 'cus_heavy'

/** A job row of the lane, for the bulk seed. */
function row(status: string, customer: string | null, turn: number, at: string): JobsTable {
  return {
    id: newId('job'),
    kind,
    status,
    customer_id: customer,
    subject_type: 'site',
    subject_id: 'site_bench',
    input: '{}',
    result: null,
    error: null,
    progress: 0,
    step: null,
    attempts: status === 'queued' ? 0 : 1,
    max_attempts: 1,
    run_after: at,
    lease_owner: status === 'running' ? 'wrk_bench' : null,
    lease_until: status === 'running' ? new Date(Date.now() + 3_600_000).toISOString() : null,
    cancel_requested: 0,
    requested_by_user_id: null,
    requested_by_token_id: null,
    request_id: null,
    created_at: at,
    updated_at: at,
    started_at: status === 'queued' ? null : at,
    finished_at: status === 'succeeded' ? at : null,
    lane,
    urgent: 0,
    turn,
  }
}

/** 200k finished jobs, 8 running of the heavy customer, 100k queued and unplaced. */
async function seed(store: Store): Promise<void> {
  const at = new Date(Date.now() - 60_000).toISOString()
  const rows: JobsTable[] = []
  for (let i = 0; i < 200_000; i++) rows.push(row('succeeded', `cus_${i % 1000}`, Math.floor(i / 1000), at))
  for (let i = 0; i < 8; i++) rows.push(row('running', heavy, 200 + i, at))
  for (let i = 0; i < 50_000; i++) rows.push(row('queued', heavy, -1, at))
  for (let i = 0; i < 50_000; i++) rows.push(row('queued', i % 1000 < 20 ? null : `cus_${i % 1000}`, -1, at))
  for (let i = 0; i < rows.length; i += 500)
    await store.db
      .withTables<JobTables>()
      .insertInto('jobs')
      .values(rows.slice(i, i + 500))
      .execute()
  await sql`analyze`.execute(store.db)
}

const claim = async (store: Store) => {
  const now = new Date()
  await placeDueJobs(store, lane, now.toISOString())
  return store.transaction(
    (trx) =>
      claimNextJob(trx, 'wrk_bench', now, new Date(now.getTime() + 30_000), {
        lane,
        kinds: [kind],
        urgentOnly: false,
      }),
    { isolation: 'read committed' },
  )
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0

async function measure(engine: string, store: Store): Promise<void> {
  const panel = await createPanel({
    store,
    plugins: [],
    secret: 'job-claims-bench-secret-job-claims!!',
    logger: jsonLinesLogger({ level: 'error' }),
    metrics: false,
  })
  const seeding = performance.now()
  await seed(store)
  const seeded = (performance.now() - seeding) / 1000
  const placing = performance.now()
  const first = await claim(store)
  const placed = performance.now() - placing
  /** `count` claims, each finished at once as a worker would: the sorted times, and how many were the heavy one's. */
  const timeClaims = async (count: number) => {
    const times: number[] = []
    let heavyClaims = 0
    for (let i = 0; i < count; i++) {
      const began = performance.now()
      const job = await claim(store)
      times.push(performance.now() - began)
      if (!job) throw new Error('The backlog ran dry')
      if (job.customer_id === heavy) heavyClaims++
      await store.db
        .withTables<JobTables>()
        .updateTable('jobs')
        .set({ status: 'succeeded', lease_owner: null, lease_until: null })
        .where('id', '=', job.id)
        .execute()
    }
    return { times: times.sort((a, b) => a - b), heavyClaims }
  }
  const { times, heavyClaims } = await timeClaims(claims)
  // On PostgreSQL, the backlog just placed left 100k dead index entries, which each claim reads until vacuum does
  // its round (autovacuum, within a minute of such a burst): measured again after one.
  let vacuumed: { times: number[] } | undefined
  if (engine === 'postgres') {
    await sql`vacuum analyze jobs`.execute(store.db)
    vacuumed = await timeClaims(claims)
  }
  console.log(
    JSON.stringify({
      engine,
      queued: 100_000,
      finished: 200_000,
      seedSeconds: Number(seeded.toFixed(1)),
      firstClaimPlacingBacklogMs: Math.round(placed),
      firstClaimCustomer: first?.customer_id,
      claims,
      claimMedianMs: Number(percentile(times, 0.5).toFixed(2)),
      claimP99Ms: Number(percentile(times, 0.99).toFixed(2)),
      claimsOfHeavyCustomer: heavyClaims,
      ...(vacuumed
        ? {
            afterVacuumClaimMedianMs: Number(percentile(vacuumed.times, 0.5).toFixed(2)),
            afterVacuumClaimP99Ms: Number(percentile(vacuumed.times, 0.99).toFixed(2)),
          }
        : {}),
    }),
  )
  await panel.close()
}

for (const engine of engines) {
  if (engine === 'sqlite') {
    const dir = (await Bun.$`mktemp -d`.text()).trim()
    await measure('sqlite', openSqliteStore({ path: `${dir}/plinth.sqlite` }))
    await Bun.$`rm -rf ${dir}`
  } else if (engine === 'postgres') {
    const schema = `bench_claims_${process.pid}`
    const admin = postgres(url, { max: 1, onnotice: () => {} })
    await admin.unsafe(`create schema "${schema}"`)
    try {
      await measure('postgres', openPostgresStore({ url, schema, poolSize: 4 }))
    } finally {
      await admin.unsafe(`drop schema "${schema}" cascade`)
      await admin.end()
    }
  } else throw new Error(`BENCH_STORE must be sqlite, postgres or both, not "${engine}"`)
}
