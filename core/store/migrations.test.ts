// Migrations as several instances meet them: started at the same moment they apply each migration once, and a
// store a newer version migrated is refused rather than run on tables this version does not understand.

import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openTestStore } from '../testing/test-store.ts'
import { usageCountersFor } from '../usage/usage-counters.ts'
import { type Migration, migrate } from './migrations.ts'

const dir = mkdtempSync(join(tmpdir(), 'plinth-migrations-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A migration that creates a table and counts its runs in it: twice would fail on the table, or count 2. */
const counted = (id: string, table: string): Migration => ({
  id,
  async up(db) {
    await db.schema.createTable(table).addColumn('n', 'integer').execute()
    await db.withTables<Record<string, { n: number }>>().insertInto(table).values({ n: 1 }).execute()
  },
})

const set = (migrations: Migration[]) => ({
  owner: 'things',
  migrations,
  usage: usageCountersFor('things', [], []),
})

test('two instances starting at once on one store apply each migration once', async () => {
  const path = join(dir, 'race.sqlite')
  const start = String(Date.now() + 500)
  const children = [0, 1].map(() =>
    Bun.spawn(
      [process.execPath, join(import.meta.dir, '..', 'testing', 'migrate-race-child.ts'), path, start],
      {
        stdout: 'pipe',
        stderr: 'inherit',
        // On PostgreSQL the children open this process's schema for `path`.
        env: { ...process.env, PLINTH_TEST_STORE_OWNER: String(process.pid) },
      },
    ),
  )
  const applied = await Promise.all(
    children.map(async (child) => Number(await new Response(child.stdout).text())),
  )
  expect(applied.toSorted()).toEqual([0, 2])
  const store = await openTestStore(path)
  try {
    for (const table of ['race_0001_a', 'race_0002_b']) {
      const rows = await store.db
        .withTables<Record<string, { n: number }>>()
        .selectFrom(table)
        .selectAll()
        .execute()
      expect(rows).toEqual([{ n: 1 }])
    }
  } finally {
    await store.close()
  }
})

test('a store a newer version migrated is refused, naming what this version does not know', async () => {
  const path = join(dir, 'newer.sqlite')
  const newer = await openTestStore(path)
  await migrate(newer, [set([counted('0001_a', 'newer_a'), counted('0002_b', 'newer_b')])])
  await newer.close()
  const older = await openTestStore(path)
  try {
    await expect(migrate(older, [set([counted('0001_a', 'newer_a')])])).rejects.toThrow(
      /migrated by a newer version of Plinth \(things\/0002_b are unknown to this one\)/,
    )
    // A plugin no longer mounted is not a newer version: its migrations are left as they are.
    expect(await migrate(older, [])).toBe(0)
  } finally {
    await older.close()
  }
})
