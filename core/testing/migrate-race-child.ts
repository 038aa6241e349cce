// A second process for the migration race test: migrates the store named on the command line, prints how many
// migrations it applied. Separate processes, since two SQLite connections in one process block each other's thread.

import { migrate } from '../store/migrations.ts'
import { usageCountersFor } from '../usage/usage-counters.ts'
import { openTestStore } from './test-store.ts'

const [path = '', start = '0'] = process.argv.slice(2)
const store = await openTestStore(path)
const migrations = ['0001_a', '0002_b'].map((id) => ({
  id,
  async up(db: Parameters<Parameters<typeof migrate>[1][number]['migrations'][number]['up']>[0]) {
    const table = `race_${id}`
    await db.schema.createTable(table).addColumn('n', 'integer').execute()
    await db.withTables<Record<string, { n: number }>>().insertInto(table).values({ n: 1 }).execute()
  },
}))
// Both processes wait for the same moment, so their migrations overlap.
await Bun.sleep(Math.max(0, Number(start) - Date.now()))
const applied = await migrate(store, [
  { owner: 'things', migrations, usage: usageCountersFor('things', [], []) },
])
await store.close()
console.log(applied)
process.exit(0)
