// The sites plugin's data migration on a store an older version made: disk quotas set before the `diskMB` usage
// counter existed are counted once, so lowering or deleting them never drives the counter below 0.

import { expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  adjustUsage,
  createPanel,
  createUser,
  defaultLimits,
  issueApiToken,
  nowIso,
  openSqliteStore,
  type Panel,
  type PluginDefinition,
  usageOf,
} from '../../core/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import { sitesPlugin } from './index.ts'
import { type SitesTable, type SitesTables, sitesMigrations } from './migrations.ts'

/** The sites table before staff suspensions were recorded. */
type OldSitesTables = { sites: Omit<SitesTable, 'suspended_by_staff'> }

const dir = mkdtempSync(join(tmpdir(), 'plinth-sites-upgrade-'))
const secret = 'upgrade-test-secret-upgrade-test-secret'
let path = join(dir, 'plinth.sqlite')

function open(sites: PluginDefinition): Promise<Panel> {
  return createPanel({
    store: openSqliteStore({ path }),
    plugins: [brandsPlugin(), customersPlugin(), nodesPlugin({ dataDir: join(dir, 'node') }), sites],
    secret,
  })
}

async function staffToken(panel: Panel, email: string): Promise<string> {
  const user = await createUser(panel.store.db, {
    email,
    password: 'correct horse battery',
    staffRole: 'platform',
  })
  const policy = {
    defaultDays: defaultLimits.tokenDefaultLifetimeDays,
    maxDays: defaultLimits.tokenMaxLifetimeDays,
  }
  const request = { name: 'upgrade', scopes: ['*'], customerId: null, expiresAt: null }
  return (await panel.store.transaction((trx) => issueApiToken(trx, user, request, policy))).token
}

function call(panel: Panel, token: string, method: string, path: string, body?: unknown) {
  return panel.handle(
    new Request(`http://localhost/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  )
}

test('upgrading counts disk quotas set before the diskMB counter existed, once, so lowering them never drives it below 0', async () => {
  // The old schema (sites migrations 0001 and 0002), with sites whose quotas PATCH set without counting them.
  const old = await open({ ...sitesPlugin(), migrations: sitesMigrations.slice(0, 2) })
  const token = await staffToken(old, 'old@upgrade.example')
  const customer = async () =>
    ((await (await call(old, token, 'POST', '/customers', { name: 'Old' })).json()) as { id: string }).id
  const [before, counted] = [await customer(), await customer()]
  const site = async (customerId: string, n: number, diskMB: number | null) => {
    const id = `site_01JDQ3V6Y4T1ZK0M2N5P7R9S${n}0`
    await old.store.db
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
    await adjustUsage(old.store.db, customerId, 'sites', 1)
    await adjustUsage(old.store.db, customerId, 'domains', 1)
    return id
  }
  const lowered = await site(before, 1, 300)
  await site(before, 2, 200)
  await site(before, 3, null)
  // A store the billing release already ran: this customer's quota was counted when it was set.
  await site(counted, 4, 400)
  await adjustUsage(old.store.db, counted, 'diskMB', 400)
  await old.close()

  const upgraded = await open(sitesPlugin())
  try {
    const diskOf = async (customerId: string) =>
      (await usageOf(upgraded.store.db, { kind: 'customers', customerIds: [customerId] })).diskMB
    expect(await diskOf(before)).toBe(500)
    expect(await diskOf(counted)).toBe(400)
    expect((await usageOf(upgraded.store.db, { kind: 'all' })).diskMB).toBe(900)
    const newToken = await staffToken(upgraded, 'new@upgrade.example')
    const patched = await call(upgraded, newToken, 'PATCH', `/sites/${lowered}`, { limits: { diskMB: 0 } })
    expect(patched.status).toBe(200)
    expect(await diskOf(before)).toBe(200)
  } finally {
    await upgraded.close()
  }
})

test('upgrading counts the sites each node already holds, so placement keeps choosing the emptiest node', async () => {
  path = join(dir, 'placement.sqlite')
  // The schema before per-node counts (sites migrations 0001 to 0004), with sites already on the local node.
  const old = await open({ ...sitesPlugin(), migrations: sitesMigrations.slice(0, 4) })
  const token = await staffToken(old, 'nodes@upgrade.example')
  const customerId = (
    (await (await call(old, token, 'POST', '/customers', { name: 'Old' })).json()) as { id: string }
  ).id
  const nodes = (await (await call(old, token, 'GET', '/nodes')).json()) as { items: { id: string }[] }
  const local = nodes.items[0]?.id ?? ''
  for (let n = 1; n <= 3; n++) {
    await old.store.db
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
    await call(old, token, 'POST', '/nodes', {
      name: 'web-2',
      driver: 'local',
      hostname: 'web-2.example.net',
    })
  ).json()) as { id: string }
  await old.close()

  const upgraded = await open(sitesPlugin())
  try {
    const counts = await upgraded.store.db
      .withTables<SitesTables>()
      .selectFrom('node_site_counts')
      .selectAll()
      .execute()
    expect(counts).toEqual([{ node_id: local, sites: 3 }])
    const created = (await (
      await call(upgraded, token, 'POST', '/sites', {
        customerId,
        name: 'New',
        type: 'wordpress',
        domain: 'new.example.com',
      })
    ).json()) as { nodeId: string }
    expect(created.nodeId).toBe(second.id)
  } finally {
    await upgraded.close()
  }
})
