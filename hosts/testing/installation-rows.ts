// Reads rows of a real host's installation directly, as an operator would after the fact: the SQLite file in its
// DATA_DIR, or on a PostgreSQL test run the schema its hosts were started on. SQL with `?` placeholders.

import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import postgres from 'postgres'
import { testDatabaseSettings } from './host-process.ts'

/**
 * The rows `query` (with `?` placeholders) answers on the installation of hosts started on `dataDir` with the
 * store settings `database` (by default, those of this test run's engine).
 */
export async function installationRows<Row>(
  dataDir: string,
  query: string,
  parameters: readonly (string | number)[] = [],
  database: Record<string, string> = testDatabaseSettings(dataDir),
): Promise<Row[]> {
  if (!database.DATABASE_URL) {
    const db = new Database(join(dataDir, 'plinth.sqlite'), { readonly: true })
    try {
      return db.query<Row, (string | number)[]>(query).all(...parameters)
    } finally {
      db.close()
    }
  }
  const sql = postgres(database.DATABASE_URL, {
    max: 1,
    onnotice: () => {},
    connection: { search_path: database.DATABASE_SCHEMA ?? 'public' },
    // Counts as numbers, as the store reads them.
    types: {
      bigint: { to: 20, from: [20], parse: Number, serialize: (value: number) => String(value) },
    },
  })
  try {
    let index = 0
    const numbered = query.replace(/\?/g, () => `$${++index}`)
    return (await sql.unsafe(numbered, [...parameters])) as unknown as Row[]
  } finally {
    await sql.end({ timeout: 1 })
  }
}
