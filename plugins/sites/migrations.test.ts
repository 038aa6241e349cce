// The sites plugin's data migration on a store an older version made: disk quotas set before the `diskMB` usage
// counter existed are counted once, so lowering or deleting them never drives the counter below 0.

import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { nowIso, type PluginDefinition, sql } from '../../core/index.ts'
import { createTestPanel, type TestPanel, temporaryDataDir } from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import { sitesPlugin } from './index.ts'
import { type SitesTable, type SitesTables, sitesMigrations } from './migrations.ts'

/** The sites table before staff suspensions were recorded. */
type OldSitesTables = { sites: Omit<SitesTable, 'suspended_by_staff'> }

const dir = temporaryDataDir()
let path = join(dir, 'plinth.sqlite')

/** The panel on the store at `path`, with this version of the sites plugin. */
function open(sites: PluginDefinition): Promise<TestPanel> {
  return createTestPanel({
    standard: false,
    plugins: [brandsPlugin(), customersPlugin(), nodesPlugin({ dataDir: join(dir, 'node') }), sites],
    storePath: path,
  })
}

/** What an older version left in the usage counters: `delta` more of `metric` for the customer and the whole. */
async function countedByOldVersion(tp: TestPanel, customerId: string, metric: string, delta: number) {
  for (const scope of ['all', `customer:${customerId}`])
    await sql`insert into usage_counters (scope_key, metric, value) values (${scope}, ${metric}, ${delta})
      on conflict (scope_key, metric, shard) do update set value = usage_counters.value + excluded.value`.execute(
      tp.panel.store.db,
    )
}

/** The customer's (or the installation's) disk counter, as `GET /usage` answers it. */
async function diskOf(tp: TestPanel, token: string, customerId?: string): Promise<number> {
  const query = customerId ? `?customerId=${customerId}` : ''
  return ((await (await tp.request('GET', `/api/v1/usage${query}`, { token })).json()) as { diskMB: number })
    .diskMB
}

test('upgrading counts disk quotas set before the diskMB counter existed, once, so lowering them never drives it below 0', async () => {
  // The old schema (sites migrations 0001 and 0002), with sites whose quotas PATCH set without counting them.
  const old = await open({ ...sitesPlugin(), migrations: sitesMigrations.slice(0, 2) })
  const token = await old.token()
  const customer = async () =>
    (
      (await (await old.request('POST', '/api/v1/customers', { token, body: { name: 'Old' } })).json()) as {
        id: string
      }
    ).id
  const [before, counted] = [await customer(), await customer()]
  const site = async (customerId: string, n: number, diskMB: number | null) => {
    const id = `site_01JDQ3V6Y4T1ZK0M2N5P7R9S${n}0`
    await old.panel.store.db
      .withTables<OldSitesTables>()
      .insertInto('sites')
      .values({
        id,
        customer_id: customerId,
        handle: `old-${n}`,
        name: 'Old',
        type: 'wordpress',
        domain: `old${n}.example.com`,
        status: 'active',
        node_id: null,
        job_id: null,
        disk_mb: diskMB,
        created_at: nowIso(),
        updated_at: nowIso(),
      })
      .execute()
    await countedByOldVersion(old, customerId, 'sites', 1)
    await countedByOldVersion(old, customerId, 'domains', 1)
    return id
  }
  const lowered = await site(before, 1, 300)
  await site(before, 2, 200)
  await site(before, 3, null)
  // A store the billing release already ran: this customer's quota was counted when it was set.
  await site(counted, 4, 400)
  await countedByOldVersion(old, counted, 'diskMB', 400)
  await old.panel.close()

  const upgraded = await open(sitesPlugin())
  try {
    const newToken = await upgraded.token()
    expect(await diskOf(upgraded, newToken, before)).toBe(500)
    expect(await diskOf(upgraded, newToken, counted)).toBe(400)
    expect(await diskOf(upgraded, newToken)).toBe(900)
    const patched = await upgraded.request('PATCH', `/api/v1/sites/${lowered}`, {
      token: newToken,
      body: { limits: { diskMB: 0 } },
    })
    expect(patched.status).toBe(200)
    expect(await diskOf(upgraded, newToken, before)).toBe(200)
  } finally {
    await upgraded.panel.close()
  }
})

test('upgrading counts the sites each node already holds, so placement keeps choosing the emptiest node', async () => {
  path = join(dir, 'placement.sqlite')
  // The schema before per-node counts (sites migrations 0001 to 0004), with sites already on the local node.
  const old = await open({ ...sitesPlugin(), migrations: sitesMigrations.slice(0, 4) })
  const token = await old.token()
  const customerId = (
    (await (await old.request('POST', '/api/v1/customers', { token, body: { name: 'Old' } })).json()) as {
      id: string
    }
  ).id
  const nodes = (await (await old.request('GET', '/api/v1/nodes', { token })).json()) as {
    items: { id: string }[]
  }
  const local = nodes.items[0]?.id ?? ''
  for (let n = 1; n <= 3; n++) {
    await old.panel.store.db
      .withTables<{ sites: Omit<SitesTable, never> }>()
      .insertInto('sites')
      .values({
        id: `site_01JDQ3V6Y4T1ZK0M2N5P7R9S${n}1`,
        customer_id: customerId,
        handle: `placed-${n}`,
        name: 'Old',
        type: 'wordpress',
        domain: `placed${n}.example.com`,
        status: 'active',
        node_id: local,
        job_id: null,
        disk_mb: null,
        suspended_by_staff: 0,
        created_at: nowIso(),
        updated_at: nowIso(),
      })
      .execute()
  }
  const second = (await (
    await old.request('POST', '/api/v1/nodes', {
      token,
      body: { name: 'web-2', driver: 'local', hostname: 'web-2.example.net' },
    })
  ).json()) as { id: string }
  await old.panel.close()

  const upgraded = await open(sitesPlugin())
  try {
    const newToken = await upgraded.token()
    const counts = await upgraded.panel.store.db
      .withTables<SitesTables>()
      .selectFrom('node_site_counts')
      .selectAll()
      .execute()
    expect(counts).toEqual([{ node_id: local, sites: 3 }])
    const created = (await (
      await upgraded.request('POST', '/api/v1/sites', {
        token: newToken,
        body: { customerId, name: 'New', type: 'wordpress', domain: 'new.example.com' },
      })
    ).json()) as { nodeId: string }
    expect(created.nodeId).toBe(second.id)
  } finally {
    await upgraded.panel.close()
  }
})

test('upgrading to per-site limits gives sites made before them their limits at the first start, not five minutes on', async () => {
  path = join(dir, 'limits.sqlite')
  // The schema before per-site limits (sites migrations 0001 to 0007), with an active site on the local node.
  const old = await open({ ...sitesPlugin(), migrations: sitesMigrations.slice(0, 7) })
  const token = await old.token()
  const customerId = (
    (await (await old.request('POST', '/api/v1/customers', { token, body: { name: 'Old' } })).json()) as {
      id: string
    }
  ).id
  const nodes = (await (await old.request('GET', '/api/v1/nodes', { token })).json()) as {
    items: { id: string }[]
  }
  const site = 'site_01JDQ3V6Y4T1ZK0M2N5P7R9S12'
  await old.panel.store.db
    .withTables<{ sites: Omit<SitesTable, 'cpu_percent' | 'memory_mb' | 'processes' | 'applied_limits'> }>()
    .insertInto('sites')
    .values({
      id: site,
      customer_id: customerId,
      handle: 'before-limits',
      name: 'Old',
      type: 'wordpress',
      domain: 'before-limits.example.com',
      status: 'active',
      node_id: nodes.items[0]?.id ?? '',
      job_id: null,
      disk_mb: null,
      suspended_by_staff: 0,
      error_code: null,
      error_message: null,
      error_job_id: null,
      drift_code: null,
      drift_message: null,
      drift_job_id: null,
      drift_detected_at: null,
      created_at: nowIso(),
      updated_at: nowIso(),
    })
    .execute()
  await old.panel.close()

  // The default schedule (a check every five minutes): the site's node has never been given its limits, so the
  // upgraded panel's start runs the check at once rather than leaving the site unlimited until the first round.
  const upgraded = await open(sitesPlugin())
  upgraded.panel.start()
  try {
    const newToken = await upgraded.token()
    const checks = async () =>
      (
        (await (await upgraded.request('GET', '/api/v1/jobs?limit=100', { token: newToken })).json()) as {
          items: { kind: string }[]
        }
      ).items.filter((job) => job.kind === 'site.limitsCheck')
    const deadline = Date.now() + 5000
    while ((await checks()).length === 0 && Date.now() < deadline) await Bun.sleep(50)
    expect((await checks()).length).toBe(1)
  } finally {
    await upgraded.panel.close()
  }

  // A fresh installation (no site waiting for its limits) keeps the first check a round away.
  path = join(dir, 'fresh-limits.sqlite')
  const fresh = await open(sitesPlugin())
  fresh.panel.start()
  try {
    const freshToken = await fresh.token()
    await Bun.sleep(300)
    const jobs = (await (
      await fresh.request('GET', '/api/v1/jobs?limit=100', { token: freshToken })
    ).json()) as {
      items: { kind: string }[]
    }
    expect(jobs.items.filter((job) => job.kind === 'site.limitsCheck')).toEqual([])
  } finally {
    await fresh.panel.close()
  }
})
