// Claims, fair between customers: each lane serves its due jobs in turns, in which every customer with work waiting
// (and the platform's own work, which has no customer, as one more) gets one job before any gets a second, and
// urgent work goes first. A customer holding more than its share of the lane's workers while another waits is
// passed over (its jobs may take longer than the others'). So one customer's backlog holds another's job for about
// one job's time, not for the whole backlog.
//
// A job is placed when a claim first finds it due (not as it is enqueued: reading other jobs in the enqueuing
// transaction would make concurrent serializable enqueues fail each other): it takes the turn after the last its
// customer took in the lane, and never one below the lane's current turn (the highest a started job holds), so a
// customer coming back after a quiet spell joins the round where it is rather than at its old place. Each step is a
// seek along `jobs_turn_idx` or `jobs_share_idx`: a claim costs the same behind 100k queued jobs as behind none
// (job-claim-plan.test.ts checks the plans; `bun bench/job-claims.ts` measures it).

import { sql } from 'kysely'
import { claimRows } from '../store/row-locks.ts'
import type { Db, Store, Trx } from '../store/store.ts'
import type { JobsTable, JobTables } from './job-tables.ts'

const jobs = (db: Db) => db.withTables<JobTables>()

/** What a claim may take: a lane's due jobs of the kinds this instance runs. */
export interface ClaimScope {
  /** The lane (`''`: the shared pool). */
  readonly lane: string
  /** The lane's kinds this instance knows how to run. */
  readonly kinds: readonly string[]
  /** Urgent work only: the lane is full of other work, and this is the worker it keeps for urgent work. */
  readonly urgentOnly: boolean
}

/** How many newly due jobs one transaction places. */
const placingBatch = 500

/** The statuses of jobs that were claimed: the highest turn among them is where the lane's round is. */
const startedStatuses = ['running', 'succeeded', 'failed'] as const

/**
 * Claims the next runnable job of `scope` for `owner` until `leaseUntil`: a job whose worker's lease ran out
 * (started earlier, so resumed first), else the lowest turn among the lane's due urgent jobs, then among its
 * others. Counts the attempt. Null when there is none. Run {@link placeDueJobs} first, and this in a
 * `read committed` transaction: on PostgreSQL the row is locked and skipped by other instances' claims.
 */
export async function claimNextJob(
  trx: Trx,
  owner: string,
  now: Date,
  leaseUntil: Date,
  scope: ClaimScope,
): Promise<JobsTable | null> {
  if (scope.kinds.length === 0) return null
  const at = now.toISOString()
  let next: { id: string } | undefined = scope.urgentOnly ? undefined : await lapsedJob(trx, at, scope.kinds)
  if (!next) {
    const over = overTheirShare(await runningByCustomer(trx, scope.lane))
    next =
      (await fairest(trx, scope, 1, at, over)) ??
      (scope.urgentOnly ? undefined : await fairest(trx, scope, 0, at, over))
  }
  if (!next) return null
  await jobs(trx)
    .updateTable('jobs')
    .set({
      status: 'running',
      lease_owner: owner,
      lease_until: leaseUntil.toISOString(),
      attempts: sql<number>`attempts + 1`,
      started_at: sql<string>`coalesce(started_at, ${at})`,
      updated_at: at,
    })
    .where('id', '=', next.id)
    .execute()
  return (await jobs(trx).selectFrom('jobs').selectAll().where('id', '=', next.id).executeTakeFirst()) ?? null
}

/** A running job of `kinds` whose worker's lease ran out (it died), along `jobs_due_idx`. */
function lapsedJob(trx: Trx, at: string, kinds: readonly string[]) {
  return claimRows(
    trx,
    jobs(trx)
      .selectFrom('jobs')
      .select('id')
      .where('status', '=', 'running')
      .where('lease_until', '<', at)
      .where('kind', 'in', kinds)
      .orderBy('run_after')
      .orderBy('id')
      .limit(1),
  ).executeTakeFirst()
}

/**
 * How far past the lowest turn a claim looks for a customer within its share, in turns: a customer whose next job
 * is further ahead was served more than the one holding more workers, so that one's job is taken instead.
 */
const lookAheadTurns = 64

/**
 * The next job of the lane, urgent (1) or not (0): the lowest due turn, unless its customer holds more than its
 * share of the lane's workers while another customer waits; then that customer's lowest turn. (Turns alone give
 * each customer one start per round; a customer whose jobs take long would still fill the lane with them.)
 */
async function fairest(
  trx: Trx,
  scope: ClaimScope,
  urgent: 0 | 1,
  at: string,
  over: ReadonlySet<string | null>,
): Promise<{ id: string } | undefined> {
  const first = await lowestTurn(trx, scope, urgent, at)
  if (!first || !over.has(first.customer_id)) return first
  return (
    (await lowestTurn(trx, scope, urgent, at, { except: over, below: first.turn + lookAheadTurns })) ?? first
  )
}

/**
 * The placed, due job of the lane with the lowest turn, urgent (1) or not (0); optionally of a customer not in
 * `except`, below turn `below` (the scan passes over at most one job of each of them per turn).
 */
function lowestTurn(
  trx: Trx,
  scope: ClaimScope,
  urgent: 0 | 1,
  at: string,
  among?: { except: ReadonlySet<string | null>; below: number },
) {
  let query = jobs(trx)
    .selectFrom('jobs')
    .select(['id', 'customer_id', 'turn'])
    .where('lane', '=', scope.lane)
    .where('status', '=', 'queued')
    .where('urgent', '=', urgent)
    .where('turn', '>=', 0)
    .where('run_after', '<=', at)
    .where('kind', 'in', scope.kinds)
  if (among) {
    const customers = [...among.except].filter((customer): customer is string => customer !== null)
    query = query.where('turn', '<', among.below).where((eb) => {
      const platform = among.except.has(null) ? eb.lit(false) : eb('customer_id', 'is', null)
      return customers.length === 0
        ? eb('customer_id', 'is not', null)
        : eb.or([platform, eb('customer_id', 'not in', customers)])
    })
  }
  // Instances claiming at once each lock the row they take and pass over the others' (SQLite has one writer).
  return claimRows(trx, query.orderBy('turn').orderBy('run_after').orderBy('id').limit(1)).executeTakeFirst()
}

/** How many of the lane's running jobs (on every instance) each customer holds; null: the platform's own work. */
async function runningByCustomer(trx: Trx, lane: string): Promise<Map<string | null, number>> {
  // Counted here rather than grouped in SQL: grouped by customer, SQLite reads the lane's every job along
  // `jobs_share_idx` for its order, where the running ones are a few rows along `jobs_turn_idx`.
  const rows = await jobs(trx)
    .selectFrom('jobs')
    .select('customer_id')
    .where('lane', '=', lane)
    .where('status', '=', 'running')
    .execute()
  const running = new Map<string | null, number>()
  for (const { customer_id } of rows) running.set(customer_id, (running.get(customer_id) ?? 0) + 1)
  return running
}

/**
 * The customers holding at least their share of the lane's workers, were one more customer to start a job: with
 * `running` jobs among `k` customers, a share is ⌈(running + 1) / (k + 1)⌉ (with two workers: one each, once a
 * second customer waits).
 */
export function overTheirShare(running: ReadonlyMap<string | null, number>): Set<string | null> {
  const total = [...running.values()].reduce((sum, count) => sum + count, 0)
  const share = Math.ceil((total + 1) / (running.size + 1))
  return new Set([...running].filter(([, count]) => count >= share).map(([customer]) => customer))
}

/**
 * Places the lane's jobs that became due since the last claim (new ones, retries whose time came, scheduled ones):
 * each customer's in the order they came, from the turn after its last. A batch per transaction, so a burst of
 * 100k jobs never holds SQLite's one writer for long; another instance placing at once locks and places other rows.
 */
export async function placeDueJobs(store: Store, lane: string, at: string): Promise<void> {
  // Most claims find nothing new: one probe, outside any transaction.
  const unplaced = await jobs(store.db)
    .selectFrom('jobs')
    .select('id')
    .where('lane', '=', lane)
    .where('status', '=', 'queued')
    .where('urgent', 'in', [0, 1])
    .where('turn', '=', -1)
    .where('run_after', '<=', at)
    .limit(1)
    .executeTakeFirst()
  if (!unplaced) return
  for (const urgent of [1, 0] as const) {
    const due = (trx: Db, after?: { run_after: string; id: string }) => {
      let query = jobs(trx)
        .selectFrom('jobs')
        .select(['id', 'customer_id', 'run_after'])
        .where('lane', '=', lane)
        .where('status', '=', 'queued')
        .where('urgent', '=', urgent)
        .where('turn', '=', -1)
        .where('run_after', '<=', at)
      if (after) {
        const { run_after, id } = after
        query = query.where((eb) => eb(eb.refTuple('run_after', 'id'), '>', eb.tuple(run_after, id)))
      }
      return query.orderBy('run_after').orderBy('id')
    }
    // Each batch goes on from where the last ended: on PostgreSQL the rows just placed leave dead entries at turn -1
    // until vacuum, which a search from the start would read again at every batch.
    let after: { run_after: string; id: string } | undefined
    for (;;) {
      const placed = await store.transaction(
        async (trx) => {
          const rows = await claimRows(trx, due(trx, after).limit(placingBatch)).execute()
          if (rows.length > 0) await place(trx, lane, rows)
          return rows
        },
        { isolation: 'read committed' },
      )
      if (placed.length < placingBatch) break
      after = placed[placed.length - 1]
    }
  }
}

/** Gives each of `due` (in the order they came) its customer's next turn in the lane, in one statement. */
async function place(
  trx: Trx,
  lane: string,
  due: readonly { id: string; customer_id: string | null }[],
): Promise<void> {
  const { current, lastOf } = await turnsNow(trx, lane, [...new Set(due.map((row) => row.customer_id))])
  const nextOf = new Map<string | null, number>()
  const turns: { id: string; turn: number }[] = []
  for (const row of due) {
    const turn = nextOf.get(row.customer_id) ?? Math.max(current, (lastOf.get(row.customer_id) ?? -1) + 1)
    turns.push({ id: row.id, turn })
    nextOf.set(row.customer_id, turn + 1)
  }
  const cases = sql.join(
    turns.map(({ id, turn }) => sql`when ${id} then cast(${turn} as integer)`),
    sql` `,
  )
  await sql`update jobs set turn = case id ${cases} end where id in (${sql.join(turns.map(({ id }) => id))})`.execute(
    trx,
  )
}

/**
 * In one statement of seeks: where the lane's round is (the highest turn a started job of it holds, 0 before any),
 * and the highest turn each of `customers` (null: the platform) took in the lane (absent when none did).
 */
async function turnsNow(
  trx: Trx,
  lane: string,
  customers: readonly (string | null)[],
): Promise<{ current: number; lastOf: Map<string | null, number> }> {
  // One seek per status and urgency (a range over `status in (…)` would read every job the lane ran), and one per
  // customer along `jobs_share_idx`.
  const highest = (status: string, urgent: 0 | 1) =>
    jobs(trx)
      .selectFrom('jobs')
      .select('turn')
      .where('lane', '=', lane)
      .where('status', '=', status)
      .where('urgent', '=', urgent)
      .orderBy('turn', 'desc')
      .limit(1)
  const last = (customer: string | null) =>
    jobs(trx)
      .selectFrom('jobs')
      .select('turn')
      .where('lane', '=', lane)
      .where('customer_id', customer === null ? 'is' : '=', customer)
      .orderBy('turn', 'desc')
      .limit(1)
  const row = (await jobs(trx)
    .selectNoFrom(() => [
      ...startedStatuses.flatMap((status) => [
        highest(status, 0).as(`${status}_normal`),
        highest(status, 1).as(`${status}_urgent`),
      ]),
      ...customers.map((customer, i) => last(customer).as(`c${i}`)),
    ])
    .executeTakeFirst()) as Record<string, number | string | null> | undefined
  const turnOf = (name: string) => {
    const value = row?.[name]
    return value === null || value === undefined ? undefined : Number(value)
  }
  const current = Math.max(
    0,
    ...startedStatuses.flatMap((status) => [
      turnOf(`${status}_normal`) ?? 0,
      turnOf(`${status}_urgent`) ?? 0,
    ]),
  )
  const lastOf = new Map<string | null, number>()
  customers.forEach((customer, i) => {
    const turn = turnOf(`c${i}`)
    if (turn !== undefined) lastOf.set(customer, turn)
  })
  return { current, lastOf }
}

/**
 * Moves queued jobs to the lane their kind runs in now, unplaced (a kind that changed lanes in an upgrade, or jobs
 * queued before lanes were recorded): run once as the workers start.
 */
export async function moveToTheirLanes(
  store: Store,
  lanes: readonly { readonly lane: string; readonly kinds: readonly string[] }[],
): Promise<void> {
  for (const { lane, kinds } of lanes) {
    if (kinds.length === 0) continue
    await store.transaction(
      (trx) =>
        jobs(trx)
          .updateTable('jobs')
          .set({ lane, turn: -1 })
          .where('status', '=', 'queued')
          .where('kind', 'in', kinds)
          .where('lane', '<>', lane)
          .execute(),
      { isolation: 'read committed' },
    )
  }
}
