// The nodes plugin's migrations on a store an older version made: the traffic the kernel kept before 0.2 moves
// into the plugin's own table, and the kernel's table goes.

import { expect, test } from 'bun:test'
import { join } from 'node:path'
import type { PluginDefinition } from '../../core/index.ts'
import {
  createTestPanel,
  customerA,
  customerB,
  fixturePlugin,
  type TestPanel,
  temporaryDataDir,
  twoTenants,
} from '../../hosts/testing/index.ts'
import { nodesPlugin } from './index.ts'
import { type NodesTables, type NodeTrafficTable, nodesMigrations } from './migrations.ts'
import type { RecentTraffic } from './traffic.ts'

const dir = temporaryDataDir()

/** The panel on the store at `storePath`, with this version of the nodes plugin (and tenants once upgraded). */
function open(storePath: string, nodes: PluginDefinition, tenants = false): Promise<TestPanel> {
  const fixture = fixturePlugin({ description: 'Two brands with a customer each.', tenants: twoTenants })
  return createTestPanel({ standard: false, plugins: [...(tenants ? [fixture] : []), nodes], storePath })
}

/** The traffic totals (the hourly and daily series are hosts/usage.test.ts's). */
async function traffic(tp: TestPanel, token: string): Promise<Pick<RecentTraffic, 'last24h' | 'last7d'>> {
  const response = await tp.request('GET', '/api/v1/usage', { token })
  expect(response.status).toBe(200)
  const { last24h, last7d } = ((await response.json()) as { traffic: RecentTraffic }).traffic
  return { last24h, last7d }
}

const tableNames = async (tp: TestPanel) => await tp.panel.store.tables()

test('upgrading moves the traffic the kernel kept into node_traffic, and drops the kernel’s table', async () => {
  const storePath = join(dir, 'upgrade.sqlite')
  // An installation made before 0.2: the nodes table of migration 0001, and the kernel's traffic table.
  const old = await open(storePath, {
    ...nodesPlugin({ dataDir: dir }),
    migrations: nodesMigrations({ seedLocal: true }).slice(0, 1),
  })
  const db = old.panel.store.db
  await db.schema
    .createTable('traffic_buckets')
    .addColumn('scope_key', 'text', (c) => c.notNull())
    .addColumn('hour', 'text', (c) => c.notNull())
    .addColumn('requests', 'integer', (c) => c.notNull())
    .addColumn('bytes', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('traffic_buckets_pk', ['scope_key', 'hour'])
    .execute()
  const hour = (hoursAgo: number) => new Date(Date.now() - hoursAgo * 3_600_000).toISOString().slice(0, 13)
  const rows: NodeTrafficTable[] = []
  for (const [hoursAgo, requests, bytes] of [
    [1, 100, 1000],
    [30, 10, 50],
    [24 * 8, 999, 999],
  ] as const) {
    for (const scope_key of ['all', `brand:${twoTenants[customerA]}`, `customer:${customerA}`])
      rows.push({ scope_key, hour: hour(hoursAgo), requests, bytes })
  }
  await db
    .withTables<{ traffic_buckets: NodeTrafficTable }>()
    .insertInto('traffic_buckets')
    .values(rows)
    .execute()
  expect(await tableNames(old)).not.toContain('node_traffic')
  await old.panel.close()

  const upgraded = await open(storePath, nodesPlugin({ dataDir: dir }), true)
  try {
    const tables = await tableNames(upgraded)
    expect(tables).toContain('node_traffic')
    expect(tables).not.toContain('traffic_buckets')
    const moved = { last24h: { requests: 100, bytes: 1000 }, last7d: { requests: 110, bytes: 1050 } }
    expect(await traffic(upgraded, await upgraded.token())).toEqual(moved)
    expect(await traffic(upgraded, await upgraded.token({ customerId: customerA }))).toEqual(moved)
    expect(await traffic(upgraded, await upgraded.token({ customerId: customerB }))).toEqual({
      last24h: { requests: 0, bytes: 0 },
      last7d: { requests: 0, bytes: 0 },
    })
    // A node made before site defaults existed takes the same ones as a new node.
    const nodes = await upgraded.request('GET', '/api/v1/nodes', { token: await upgraded.token() })
    const { items } = (await nodes.json()) as { items: { siteDefaults: unknown }[] }
    expect(items.map((node) => node.siteDefaults)).toEqual([
      { cpuPercent: 100, memoryMB: 1024, processes: 128 },
    ])
  } finally {
    await upgraded.panel.close()
  }
})

test('a fresh installation gets node_traffic and no kernel traffic table', async () => {
  const tp = await open(join(dir, 'fresh.sqlite'), nodesPlugin({ dataDir: dir }))
  try {
    const tables = await tableNames(tp)
    expect(tables).toContain('node_traffic')
    expect(tables).not.toContain('traffic_buckets')
    expect(await traffic(tp, await tp.token())).toEqual({
      last24h: { requests: 0, bytes: 0 },
      last7d: { requests: 0, bytes: 0 },
    })
  } finally {
    await tp.panel.close()
  }
})

test('upgrading forgets what nodes reported before node modules, and keeps what they report now', async () => {
  const storePath = join(dir, 'capabilities.sqlite')
  const old = await open(storePath, {
    ...nodesPlugin({ dataDir: dir }),
    migrations: nodesMigrations({ seedLocal: true }).slice(0, 4),
  })
  const nodes = old.panel.store.db.withTables<NodesTables>()
  const [local] = await nodes.selectFrom('nodes').select('id').execute()
  const before = { nginx: '1.22.1', php: '8.2.26', wordpress: '6.1.9', unixUsers: true, mode: 'serving' }
  await nodes
    .updateTable('nodes')
    .set({ agent_capabilities: JSON.stringify(before) })
    .where('id', '=', local?.id ?? '')
    .execute()
  await old.panel.close()
  const upgraded = await open(storePath, nodesPlugin({ dataDir: dir }))
  const row = await upgraded.panel.store.db
    .withTables<NodesTables>()
    .selectFrom('nodes')
    .select('agent_capabilities')
    .where('id', '=', local?.id ?? '')
    .executeTakeFirst()
  expect(row?.agent_capabilities).toBeNull()
  await upgraded.panel.close()
})
