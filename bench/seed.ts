// Seeds a benchmark store: 100k customers and 1M sites (one customer with 50k, for deep pages), written in bulk.
// This is the SQLite store; bench/seed-postgres.ts seeds the same rows into PostgreSQL.

import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import {
  createPanel,
  createUser,
  issueApiToken,
  newId,
  openSqliteStore,
  type Store,
  type User,
} from '../core/host.ts'
import { benchInstallation } from './installation.ts'
import {
  benchSecret,
  nodeSiteCountsSql,
  type SeedCounts,
  type Seeded,
  siteOwner,
  usageCountersSql,
} from './seed-shape.ts'

export type { Seeded } from './seed-shape.ts'

/** What the panel's own start made that the bulk rows refer to, and the bench's platform staff user. */
export interface Prepared {
  readonly brandId: string
  readonly nodeId: string
  readonly staff: User
}

/**
 * Opens the installation's panel once on `store` (the kernel's and every plugin's migrations, the default brand and
 * the local node, as `npm start` makes them), adds the bench's staff user, and closes it.
 */
export async function prepareStore(store: Store, dataDir: string): Promise<Prepared> {
  const panel = await createPanel({ store, ...(await benchInstallation(dataDir)), secret: benchSecret })
  const brandId = (
    await panel.store.db
      .withTables<{ brands: { id: string; is_default: number } }>()
      .selectFrom('brands')
      .select('id')
      .where('is_default', '=', 1)
      .executeTakeFirstOrThrow()
  ).id
  // Every seeded site lives on the local node, as sites created through the API would.
  const nodeId = (
    await panel.store.db
      .withTables<{ nodes: { id: string; name: string } }>()
      .selectFrom('nodes')
      .select('id')
      .where('name', '=', 'local')
      .executeTakeFirstOrThrow()
  ).id
  const staff = await createUser(panel.store.db, {
    email: 'bench@example.test',
    password: 'bench password long',
    staffRole: 'platform',
  })
  await panel.close()
  return { brandId, nodeId, staff }
}

/** Mints the staff user's `*` tokens: one for the platform, one limited to `bigCustomerId`. */
export async function mintTokens(
  store: Store,
  staff: User,
  bigCustomerId: string,
): Promise<{ staffToken: string; limitedToken: string }> {
  const policy = { defaultDays: 30, maxDays: 365 }
  const mint = (customerId: string | null) =>
    store.transaction((trx) =>
      issueApiToken(trx, staff, { name: 'bench', scopes: ['*'], customerId, expiresAt: null }, policy),
    )
  return { staffToken: (await mint(null)).token, limitedToken: (await mint(bigCustomerId)).token }
}

/** Seeds `dataDir` with `customers` customers and `sites` sites; `bigCustomerSites` of them belong to one customer. */
export async function seed(
  dataDir: string,
  counts: SeedCounts = { customers: 100_000, sites: 1_000_000, bigCustomerSites: 50_000 },
): Promise<Seeded> {
  const path = join(dataDir, 'plinth.sqlite')
  // Migrate and make the staff user and tokens through the kernel, then bulk-load rows the way the plugins store them.
  const { brandId, nodeId, staff } = await prepareStore(openSqliteStore({ path }), dataDir)

  const db = new Database(path)
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF')
  const now = new Date().toISOString()
  const customerIds: string[] = []
  db.transaction(() => {
    const customer = db.prepare(
      'INSERT INTO customers (id, name, email, brand_id, status, created_at, updated_at) VALUES (?, ?, NULL, ?, ?, ?, ?)',
    )
    const tenant = db.prepare('INSERT INTO tenants (customer_id, brand_id) VALUES (?, ?)')
    for (let i = 0; i < counts.customers; i++) {
      const id = newId('cus')
      customerIds.push(id)
      customer.run(id, `Customer ${i}`, brandId, 'active', now, now)
      tenant.run(id, brandId)
    }
  })()
  const bigCustomerId = customerIds[0] ?? ''
  db.transaction(() => {
    const site = db.prepare(
      'INSERT INTO sites (id, customer_id, handle, name, type, domain, status, node_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    )
    for (let i = 0; i < counts.sites; i++) {
      site.run(
        newId('site'),
        siteOwner(i, counts, customerIds),
        `s${i}`,
        `Site ${i}`,
        'wordpress',
        `s${i}.bench.example`,
        'active',
        nodeId,
        now,
        now,
      )
    }
  })()
  db.exec(usageCountersSql)
  db.exec(nodeSiteCountsSql)
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
  db.close()

  const store = openSqliteStore({ path })
  const tokens = await mintTokens(store, staff, bigCustomerId)
  await store.close()
  return { dataDir, ...tokens, bigCustomerId, secret: benchSecret }
}
