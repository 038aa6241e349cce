// A claim must cost the same with a million finished jobs, or 100k queued, as with none: each of its lookups goes
// along an index, placing newly due jobs included. Checked on SQLite's plan of the very statements a claim runs (the
// store is SQLite whatever the test engine is).

import { afterAll, expect, test } from 'bun:test'
import { CompiledQuery, sql } from 'kysely'
import { newId } from '../ids/ids.ts'
import { createPanel, type Panel } from '../panel/create-panel.ts'
import { openSqliteStore } from '../store/sqlite-store.ts'
import { claimNextJob, placeDueJobs } from './job-claim.ts'
import type { JobTables } from './job-tables.ts'

let panel: Panel | undefined
afterAll(() => panel?.close())

test('every lookup of a claim searches an index, none scans the jobs table', async () => {
  panel = await createPanel({
    store: openSqliteStore({ path: ':memory:' }),
    plugins: [],
    secret: 's'.repeat(32),
  })
  const store = panel.store
  // The planner decides by the table's statistics: a store that has run many jobs, and a few waiting.
  const at = new Date().toISOString()
  await store.transaction(async (trx) => {
    const insert = (values: Record<string, unknown>) =>
      trx
        .withTables<JobTables>()
        .insertInto('jobs')
        .values({
          id: newId('job'),
          kind: 'a.b',
          subject_type: 'thing',
          subject_id: 'thing_1',
          input: '{}',
          progress: 0,
          attempts: 1,
          max_attempts: 5,
          run_after: at,
          cancel_requested: 0,
          lane: '',
          urgent: 0,
          created_at: at,
          updated_at: at,
          ...values,
        } as never)
        .execute()
    for (let i = 0; i < 2000; i++) {
      // Finished jobs of many customers, a few waiting (unplaced, so the claim places them first), a few of one
      // customer running.
      const status = i % 100 === 0 ? 'queued' : i % 100 === 50 ? 'running' : 'succeeded'
      await insert({
        status,
        customer_id: status === 'running' ? 'cus_0' : i % 3 === 0 ? null : `cus_${i % 50}`,
        subject_id: `thing_${i}`,
        urgent: i % 700 === 0 ? 1 : 0,
        lease_until: status === 'running' ? new Date(Date.now() + 3_600_000).toISOString() : null,
        turn: status === 'queued' ? -1 : i,
      })
    }
    // The lowest turns are of the customer running more than its share, then of another: the claim passes over it.
    await insert({ status: 'queued', customer_id: 'cus_0', turn: 0 })
    await insert({ status: 'queued', customer_id: 'cus_1', turn: 1 })
  })
  await sql`analyze`.execute(store.db)
  const statements: string[] = []
  const stop = store.observeStatements((statement) => statements.push(statement))
  const now = new Date()
  const claimed: (string | null)[] = []
  // The urgent jobs first (three), then the others.
  for (let i = 0; i < 4; i++) {
    await placeDueJobs(store, '', now.toISOString())
    const row = await store.transaction((trx) =>
      claimNextJob(trx, 'wrk_test', now, new Date(now.getTime() + 1000), {
        lane: '',
        kinds: ['a.b'],
        urgentOnly: false,
      }),
    )
    claimed.push(row?.urgent === 1 ? 'urgent' : (row?.customer_id ?? null))
  }
  stop?.()
  expect(claimed).toEqual(['urgent', 'urgent', 'urgent', 'cus_1'])
  // Every read of the claim: the lapsed lease, the due jobs to place, the lane's turn and each customer's last, the
  // lowest turn; then the claimed row is read again by its key.
  const lookups = statements.filter((statement) => /^\s*select\b.*\bfrom "jobs"/i.test(statement))
  expect(lookups.length).toBeGreaterThanOrEqual(6)
  const used = new Set<string>()
  for (const lookup of lookups) {
    // Any value stands for each placeholder: the plan is of the same statement.
    const parameters = [...lookup.matchAll(/\?/g)].map(() => now.toISOString())
    const { rows } = await store.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${lookup}`, parameters),
    )
    const details = rows.map((row) => row.detail)
    expect(details.some((detail) => /SCAN jobs\b/.test(detail))).toBe(false)
    // Nor reads a whole lane (every job it ever ran) along an index searched by its lane alone.
    expect(details.some((detail) => /INDEX \w+ \(lane=\?\)/.test(detail))).toBe(false)
    expect(details.some((detail) => /USE TEMP B-TREE FOR ORDER BY/.test(detail))).toBe(false)
    for (const detail of details) {
      const index = /SEARCH jobs USING (?:COVERING )?INDEX (\w+)/.exec(detail)?.[1]
      if (index) used.add(index)
    }
  }
  expect([...used].sort()).toEqual([
    'jobs_due_idx',
    'jobs_share_idx',
    'jobs_turn_idx',
    'sqlite_autoindex_jobs_1',
  ])
})
