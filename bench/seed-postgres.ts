// Seeds the PostgreSQL bench database with the rows bench/seed.ts writes into SQLite: the panel's own migrations
// first (the panel opened once on the empty database), then customers, tenants and sites by COPY, the counters the
// plugins would keep, and `vacuum analyze`.

import { once } from 'node:events'
import type { Writable } from 'node:stream'
import postgres from 'postgres'
import { newId, openPostgresStore } from '../core/host.ts'
import { mintTokens, prepareStore } from './seed.ts'
import {
  benchSecret,
  nodeSiteCountsSql,
  type SeedCounts,
  type Seeded,
  siteOwner,
  usageCountersSql,
} from './seed-shape.ts'

/** Where the bench database is: the server of `serverUrl`, database `database` (made afresh, dropped after). */
export interface BenchDatabase {
  /** The URL of the bench database itself, for the servers' DATABASE_URL. */
  readonly url: string
  readonly name: string
  /** Drops the bench database (its connections first). */
  drop(): Promise<void>
}

/** `serverUrl` with its database replaced by `database`. */
function urlOf(serverUrl: string, database: string): string {
  const url = new URL(serverUrl)
  url.pathname = `/${database}`
  return url.href
}

/**
 * Makes database `name` afresh on the server of `serverUrl` (dropping one left by an earlier run, with its
 * connections). The database `serverUrl` names is only connected to, never changed.
 */
export async function freshDatabase(serverUrl: string, name: string): Promise<BenchDatabase> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`BENCH_DATABASE: not a plain name: ${name}`)
  if (new URL(serverUrl).pathname === `/${name}`)
    throw new Error(`BENCH_DATABASE ${name} is the database DATABASE_URL names: the bench would drop it`)
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
  const drop = () => admin.unsafe(`drop database if exists "${name}" with (force)`)
  try {
    await drop()
    await admin.unsafe(`create database "${name}"`)
  } catch (error) {
    await admin.end()
    throw new Error(
      `cannot make the bench database ${name} on ${new URL(serverUrl).host}: ${(error as Error).message}`,
    )
  }
  return {
    url: urlOf(serverUrl, name),
    name,
    async drop() {
      await drop()
      await admin.end()
    },
  }
}

/** Writes `lines` (COPY text format, each ending in a newline) into `stream`, in chunks, minding backpressure. */
async function copyLines(stream: Writable, lines: Iterable<string>): Promise<void> {
  let chunk = ''
  for (const line of lines) {
    chunk += line
    if (chunk.length < 1 << 16) continue
    if (!stream.write(chunk)) await once(stream, 'drain')
    chunk = ''
  }
  stream.end(chunk)
  await once(stream, 'finish')
}

/** Seeds the database at `url` as bench/seed.ts seeds SQLite; the panels' DATA_DIR is `dataDir`. */
export async function seedPostgres(url: string, dataDir: string, counts: SeedCounts): Promise<Seeded> {
  const { brandId, nodeId, staff } = await prepareStore(openPostgresStore({ url }), dataDir)
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    const now = new Date().toISOString()
    const customerIds = Array.from({ length: counts.customers }, () => newId('cus'))
    await copyLines(
      await sql`copy customers (id, name, email, brand_id, status, created_at, updated_at) from stdin`.writable(),
      customerIds.map((id, i) => `${id}\tCustomer ${i}\t\\N\t${brandId}\tactive\t${now}\t${now}\n`),
    )
    await copyLines(
      await sql`copy tenants (customer_id, brand_id) from stdin`.writable(),
      customerIds.map((id) => `${id}\t${brandId}\n`),
    )
    function* sites() {
      for (let i = 0; i < counts.sites; i++)
        yield `${newId('site')}\t${siteOwner(i, counts, customerIds)}\ts${i}\tSite ${i}\twordpress\ts${i}.bench.example\tactive\t${nodeId}\t${now}\t${now}\n`
    }
    await copyLines(
      await sql`copy sites (id, customer_id, handle, name, type, domain, status, node_id, created_at, updated_at)
        from stdin`.writable(),
      sites(),
    )
    await sql.unsafe(usageCountersSql)
    await sql.unsafe(nodeSiteCountsSql)
    // Statistics for the planner, and the visibility map and hint bits set now rather than by the first readers.
    await sql.unsafe('vacuum analyze')
    const store = openPostgresStore({ url })
    const tokens = await mintTokens(store, staff, customerIds[0] ?? '')
    await store.close()
    return { dataDir, ...tokens, bigCustomerId: customerIds[0] ?? '', secret: benchSecret }
  } finally {
    await sql.end()
  }
}
