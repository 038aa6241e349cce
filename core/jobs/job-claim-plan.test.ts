// A claim must cost the same with a million finished jobs as with none: each of its lookups goes along an index.
// Checked on SQLite's plan of the very statements a claim runs (the store is SQLite whatever the test engine is).

import { afterAll, expect, test } from 'bun:test'
import { CompiledQuery, sql } from 'kysely'
import { newId } from '../ids/ids.ts'
import { createPanel, type Panel } from '../panel/create-panel.ts'
import { openSqliteStore } from '../store/sqlite-store.ts'
import { claimNextJob } from './job-queue.ts'
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
    for (let i = 0; i < 2000; i++) {
      const status = i % 100 === 0 ? 'queued' : 'succeeded'
      await trx
        .withTables<JobTables>()
        .insertInto('jobs')
        .values({
          id: newId('job'),
          kind: 'a.b',
          status,
          customer_id: null,
          subject_type: 'thing',
          subject_id: `thing_${i}`,
          input: '{}',
          progress: 0,
          attempts: 1,
          max_attempts: 5,
          run_after: at,
          cancel_requested: 0,
          created_at: at,
          updated_at: at,
        } as never)
        .execute()
    }
  })
  await sql`analyze`.execute(store.db)
  const statements: string[] = []
  const stop = store.observeStatements((statement) => statements.push(statement))
  const now = new Date()
  await store.transaction((trx) =>
    claimNextJob(trx, 'wrk_test', now, new Date(now.getTime() + 1000), ['a.b']),
  )
  stop?.()
  // The lookups of a runnable job (then the claimed row is read again by its key).
  const lookups = statements.filter((statement) => /^\s*select\b.*"status" = /i.test(statement))
  expect(lookups.length).toBe(2)
  for (const lookup of lookups) {
    // Any value stands for each placeholder: the plan is of the same statement.
    const parameters = [...lookup.matchAll(/\?/g)].map(() => now.toISOString())
    const { rows } = await store.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${lookup}`, parameters),
    )
    const details = rows.map((row) => row.detail)
    expect(details.some((detail) => /SEARCH jobs USING (COVERING )?INDEX jobs_due_idx/.test(detail))).toBe(
      true,
    )
    expect(details.some((detail) => /SCAN jobs\b/.test(detail))).toBe(false)
  }
})
