// Seeds a benchmark store: 100k customers and 1M sites (one customer with 50k, for deep pages), written in bulk.

import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { createPanel, createUser, issueApiToken, newId, openSqliteStore } from '../core/host.ts'
import { benchInstallation } from './installation.ts'

/** What a seeded store holds that the benchmark needs. */
export interface Seeded {
  readonly dataDir: string
  readonly staffToken: string
  readonly limitedToken: string
  readonly bigCustomerId: string
  readonly secret: string
}

/** Seeds `dataDir` with `customers` customers and `sites` sites; `bigCustomerSites` of them belong to one customer. */
export async function seed(
  dataDir: string,
  counts = { customers: 100_000, sites: 1_000_000, bigCustomerSites: 50_000 },
): Promise<Seeded> {
  const secret = 'bench-secret-bench-secret-bench-secret-!!'
  const path = join(dataDir, 'plinth.sqlite')
  // Migrate and make the staff user and tokens through the kernel, then bulk-load rows the way the plugins store them.
  const panel = await createPanel({
    store: openSqliteStore({ path }),
    ...(await benchInstallation(dataDir)),
    secret,
  })
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
      // The big customer's sites are spread through the id range, as they would be in a live installation.
      const owner =
        i % Math.ceil(counts.sites / counts.bigCustomerSites) === 0
          ? bigCustomerId
          : (customerIds[1 + (i % (counts.customers - 1))] ?? '')
      site.run(
        newId('site'),
        owner,
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
  // Usage counters as the plugins would have kept them.
  db.exec(`INSERT INTO usage_counters (scope_key, metric, value)
    SELECT 'customer:' || id, 'customers', 1 FROM customers
    UNION ALL SELECT 'all', 'customers', count(*) FROM customers
    UNION ALL SELECT 'brand:' || brand_id, 'customers', count(*) FROM customers GROUP BY brand_id
    UNION ALL SELECT 'customer:' || customer_id, 'sites', count(*) FROM sites GROUP BY customer_id
    UNION ALL SELECT 'all', 'sites', count(*) FROM sites
    UNION ALL SELECT 'customer:' || customer_id, 'domains', count(*) FROM sites GROUP BY customer_id
    UNION ALL SELECT 'all', 'domains', count(*) FROM sites`)
  // The per-node counts placement reads, as the sites plugin keeps them.
  db.exec(
    'INSERT INTO node_site_counts (node_id, sites) SELECT node_id, count(*) FROM sites GROUP BY node_id',
  )
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
  db.close()

  const store = openSqliteStore({ path })
  const policy = { defaultDays: 30, maxDays: 365 }
  const mint = (customerId: string | null) =>
    store.transaction((trx) =>
      issueApiToken(trx, staff, { name: 'bench', scopes: ['*'], customerId, expiresAt: null }, policy),
    )
  const staffToken = (await mint(null)).token
  const limitedToken = (await mint(bigCustomerId)).token
  await store.close()
  return { dataDir, staffToken, limitedToken, bigCustomerId, secret }
}
