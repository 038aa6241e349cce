// Closing a customer as a client sees it: a customer owning something of every standard plugin (a site served on the
// local node with a certificate attached, an SFTP account and a shell session; a database and a login on the
// machine's MariaDB; a subscription; a member and a token limited to it) is deleted by staff with `customer:delete`,
// refused new resources while its job runs, and then everything it owned reads 404 or is no longer listed, the
// database is gone from MariaDB, `customer.deleted` reached a webhook, and the audit log still has its entries.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mysql from 'mysql2/promise'
import {
  createTestPanel,
  createTestUser,
  expectProblem,
  freePort,
  makeHierarchy,
  nodeWithPlayedAgent,
  playAgent,
  removeNodeLeftovers,
  startWebhookReceiver,
  type TestPanel,
  type WebhookReceiver,
  waitFor,
} from '../../hosts/testing/index.ts'
import { billingPlugin } from '../billing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { certificatesPlugin } from '../certificates/index.ts'
import { databasesPlugin } from '../databases/index.ts'
import { filesPlugin } from '../files/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import { sftpPlugin } from '../sftp/index.ts'
import { shellPlugin } from '../shell/index.ts'
import { sitesPlugin } from '../sites/index.ts'
import { webhooksPlugin } from '../webhooks/index.ts'
import type { Customer } from './contract.ts'
import { customersPlugin } from './index.ts'

const folder = mkdtempSync(join(tmpdir(), 'plinth-customer-deletion-'))
const sitesDir = join(folder, 'sites')
// nginx's workers and the sites' users pass through to the sites' homes.
chmodSync(folder, 0o711)
const run = crypto.randomUUID().slice(0, 6)
let tp: TestPanel
let staff: string
let hooks: WebhookReceiver
let serverId: string

async function json<T>(response: Response, status: number): Promise<T> {
  const text = await response.text()
  expect({ status: response.status, text }).toMatchObject({ status })
  return JSON.parse(text) as T
}

const call = (method: string, path: string, body?: unknown, token = staff) =>
  tp.request(method, `/api/v1${path}`, { token, ...(body === undefined ? {} : { body }) })

/** The machine's MariaDB: root, no password. */
const mariadbAdmin = { host: '127.0.0.1', port: 3306, username: 'root', password: '' }

let sequence = 0
const calls = {
  async newCustomer(): Promise<string> {
    return (
      await json<{ id: string }>(await call('POST', '/customers', { name: `Customer ${sequence++}` }), 201)
    ).id
  },
  newPlan: async (limits: Record<string, number>) =>
    json<{ id: string }>(await call('POST', '/plans', { name: `Plan ${sequence++}`, limits }), 201),
  createSite: (customerId: string) =>
    call('POST', '/sites', {
      customerId,
      name: 'Site',
      type: 'wordpress',
      domain: `d${run}-${sequence++}.example.com`,
    }),
  /** A site of the customer, once it is active on the local node. */
  async activeSite(customerId: string) {
    const site = await json<{ id: string; domain: string }>(await calls.createSite(customerId), 201)
    await waitFor(
      `site ${site.id} to be active`,
      async () => {
        const now = await json<{ status: string }>(await call('GET', `/sites/${site.id}`), 200)
        if (now.status === 'active') return true
        await Bun.sleep(50)
        return false
      },
      30_000,
    )
    return site
  },
}

/** Waits until `path` answers `status` to staff. */
function until(path: string, status: number, timeoutMs = 30_000) {
  return waitFor(
    `${path} to answer ${status}`,
    async () => {
      if ((await call('GET', path)).status === status) return true
      await Bun.sleep(50)
      return false
    },
    timeoutMs,
  )
}

beforeAll(async () => {
  hooks = startWebhookReceiver()
  tp = await createTestPanel({
    standard: false,
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      nodesPlugin({
        dataDir: join(folder, 'panel'),
        localServing: { dataDir: sitesDir, httpPort: freePort(), httpsPort: freePort() },
      }),
      sitesPlugin(),
      databasesPlugin({ checkIntervalMs: 0 }),
      filesPlugin(),
      sftpPlugin({ port: freePort(), listen: '127.0.0.1', checkEveryMs: 200 }),
      shellPlugin(),
      certificatesPlugin({ acme: false }),
      billingPlugin(),
      webhooksPlugin({ allowedHosts: ['127.0.0.1'], pollIntervalMs: 10 }),
    ],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  staff = await tp.token()
  await json(await call('POST', '/webhooks', { url: hooks.url, events: ['customer.deleted'] }), 201)
  const server = await json<{ id: string }>(
    await call('POST', '/database-servers', {
      name: `deletion-${run}`,
      engine: 'mariadb',
      ...mariadbAdmin,
    }),
    201,
  )
  serverId = server.id
}, 60_000)

afterAll(async () => {
  await tp?.panel.close()
  hooks?.stop()
  // The local node's nginx and PHP-FPM outlive the panel (they serve on while it restarts): stopped here.
  removeNodeLeftovers(sitesDir)
  rmSync(folder, { recursive: true, force: true })
})

/** A customer owning something of every standard plugin, and where each of them is read. */
async function customerWithEverything() {
  const customerId = await calls.newCustomer()
  const owner = await createTestUser(tp.panel.store.db, {
    email: `owner-${crypto.randomUUID().slice(0, 8)}@deletion.example`,
    staffRole: null,
  })
  await json(
    await call('POST', `/customers/${customerId}/members`, { email: owner.email, role: 'owner' }),
    201,
  )
  const ownerToken = await tp.token({ user: owner })
  const limited = await tp.token({ customerId })
  const plan = await calls.newPlan({ sites: 5 })
  const subscription = await json<{ id: string }>(
    await call('POST', '/subscriptions', { customerId, planId: plan.id }),
    201,
  )
  const site = await calls.activeSite(customerId)
  const ca = await makeHierarchy([site.domain])
  const certificate = await json<{ id: string }>(
    await call('POST', '/certificates', {
      customerId,
      certificatePem: ca.leaf.pem,
      privateKeyPem: ca.leaf.keyPem,
      chainPem: ca.intermediate.pem + ca.root.pem,
    }),
    201,
  )
  await json(await call('PUT', `/sites/${site.id}/certificate`, { certificateId: certificate.id }), 202)
  const sftp = await json<{ id: string }>(await call('POST', `/sites/${site.id}/sftp-users`, {}), 201)
  const shell = await json<{ id: string }>(await call('POST', `/sites/${site.id}/shell-sessions`), 201)
  const database = await json<{ id: string; name: string }>(
    await call('POST', '/databases', { customerId, engine: 'mariadb', name: `shop${run}` }),
    201,
  )
  await waitFor('the database to be made', async () => {
    const now = await json<{ status: string }>(await call('GET', `/databases/${database.id}`), 200)
    if (now.status === 'active') return true
    await Bun.sleep(50)
    return false
  })
  const login = await json<{ id: string; username: string }>(
    await call('POST', '/database-users', {
      customerId,
      name: `shop${run}`,
      serverId,
      grants: [{ databaseId: database.id, access: 'readwrite' }],
    }),
    201,
  )
  return {
    customerId,
    owner,
    ownerToken,
    limited,
    database,
    login,
    owned: [
      `/customers/${customerId}`,
      `/sites/${site.id}`,
      `/certificates/${certificate.id}`,
      `/sites/${site.id}/sftp-users/${sftp.id}`,
      `/sites/${site.id}/shell-sessions/${shell.id}`,
      `/databases/${database.id}`,
      `/database-users/${login.id}`,
      `/subscriptions/${subscription.id}`,
    ],
    site,
  }
}

describe('DELETE /customers/{id}', () => {
  test('removes the customer and everything it owns, as a job; customer.deleted is sent; the audit log keeps it', async () => {
    const made = await customerWithEverything()
    for (const path of made.owned)
      expect({ path, status: (await call('GET', path)).status }).toEqual({ path, status: 200 })

    const home = join(sitesDir, 'sites', made.site.id)
    expect(existsSync(home)).toBe(true)
    const answer = await json<Customer>(await call('DELETE', `/customers/${made.customerId}`), 202)
    expect(answer).toMatchObject({ id: made.customerId, status: 'deleting' })
    expect(answer.jobId).toStartWith('job_')
    // Asked again while it runs: the same deletion.
    const again = await json<Customer>(await call('DELETE', `/customers/${made.customerId}`), 202)
    expect(again).toMatchObject({ status: 'deleting', jobId: answer.jobId })
    // Nothing new is made for it meanwhile.
    await expectProblem(await calls.createSite(made.customerId), 409, 'customer_deleting')
    await expectProblem(
      await call('POST', '/databases', { customerId: made.customerId, engine: 'mariadb', name: 'late' }),
      409,
      'customer_deleting',
    )
    await expectProblem(
      await call('PATCH', `/customers/${made.customerId}`, { name: 'Renamed' }),
      409,
      'customer_deleting',
    )

    const job = await waitFor(
      'the deletion job to end',
      async () => {
        const now = await json<{ status: string; error: unknown }>(
          await call('GET', `/jobs/${answer.jobId}`),
          200,
        )
        if (now.status !== 'queued' && now.status !== 'running') return now
        await Bun.sleep(50)
        return null
      },
      60_000,
    )
    expect(job).toMatchObject({ status: 'succeeded' })

    for (const path of made.owned)
      expect({ path, status: (await call('GET', path)).status }).toEqual({ path, status: 404 })
    const listed = async (path: string) =>
      (await json<{ items: unknown[] }>(await call('GET', `${path}?customerId=${made.customerId}`), 200))
        .items
    for (const path of ['/sites', '/databases', '/database-users', '/certificates', '/subscriptions'])
      expect({ path, items: await listed(path) }).toEqual({ path, items: [] })
    const customers = await json<{ items: { id: string }[] }>(await call('GET', '/customers?limit=100'), 200)
    expect(customers.items.map((item) => item.id)).not.toContain(made.customerId)
    // Its usage reads as that of a customer nobody knows.
    await expectProblem(await call('GET', `/usage?customerId=${made.customerId}`), 404, 'not_found')

    // The site left its node; its database and login left MariaDB.
    expect(existsSync(home)).toBe(false)
    const mariadb = await mysql.createConnection({
      host: mariadbAdmin.host,
      port: mariadbAdmin.port,
      user: 'root',
    })
    try {
      const [schemas] = await mariadb.query(
        'SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?',
        [made.database.name],
      )
      expect(schemas).toEqual([])
      const [logins] = await mariadb.query('SELECT User FROM mysql.user WHERE User = ?', [
        made.login.username,
      ])
      expect(logins).toEqual([])
    } finally {
      await mariadb.end()
    }

    // Its token is revoked and its team gone: the owner no longer has it.
    expect((await call('GET', '/me', undefined, made.limited)).status).toBe(401)
    const me = await json<{ memberships: unknown[] }>(
      await call('GET', '/me', undefined, made.ownerToken),
      200,
    )
    expect(me.memberships).toEqual([])

    const delivered = await hooks.waitFor(
      (hook) => hook.json.type === 'customer.deleted' && hook.json.data.id === made.customerId,
    )
    expect(delivered.json.data).toMatchObject({ id: made.customerId, brandId: answer.brandId })

    const audit = await json<{ items: { action: string }[] }>(
      await call('GET', `/audit?subject=${made.customerId}&limit=100`),
      200,
    )
    const actions = audit.items.map((entry) => entry.action)
    expect(actions).toContain('customer.create')
    expect(actions).toContain('customer.delete')
    expect(actions).toContain('customer.remove')
    const siteAudit = await json<{ items: { action: string }[] }>(
      await call('GET', `/audit?subject=${made.site.id}&limit=100`),
      200,
    )
    expect(siteAudit.items.map((entry) => entry.action)).toContain('site.remove')
  }, 120_000)

  test('needs the staff scope customer:delete: a token without it and the customer’s owner are refused', async () => {
    const customerId = await calls.newCustomer()
    const owner = await createTestUser(tp.panel.store.db, {
      email: `owner-${crypto.randomUUID().slice(0, 8)}@deletion.example`,
      staffRole: null,
    })
    await json(
      await call('POST', `/customers/${customerId}/members`, { email: owner.email, role: 'owner' }),
      201,
    )
    const narrow = await tp.token({ scopes: ['customer:read', 'customer:manage'] })
    await expectProblem(
      await call('DELETE', `/customers/${customerId}`, undefined, narrow),
      403,
      'insufficient_scope',
    )
    await expectProblem(
      await call('DELETE', `/customers/${customerId}`, undefined, await tp.token({ user: owner })),
      403,
      'staff_only',
    )
    expect((await json<Customer>(await call('GET', `/customers/${customerId}`), 200)).status).toBe('active')
    const deleter = await tp.token({ scopes: ['customer:delete'] })
    await json(await call('DELETE', `/customers/${customerId}`, undefined, deleter), 202)
    await until(`/customers/${customerId}`, 404)
  }, 60_000)

  test('an unknown customer is 404', async () => {
    await expectProblem(await call('DELETE', '/customers/cus_01JDQ3V6Y4T1ZK0M2N5P7R9S8W'), 404, 'not_found')
  })

  test('a customer being provisioned a site is deleted all the same: the provisioning is cancelled', async () => {
    const customerId = await calls.newCustomer()
    const site = await json<{ id: string }>(await calls.createSite(customerId), 201)
    await json(await call('DELETE', `/customers/${customerId}`), 202)
    await until(`/customers/${customerId}`, 404)
    expect((await call('GET', `/sites/${site.id}`)).status).toBe(404)
  }, 60_000)
})

describe('a deletion stopped half-way', () => {
  test('carries on where it was when another instance takes its job up, and finishes', async () => {
    // The sites are on a node whose agent the test plays: their deletion waits until the test answers for the node.
    const storePath = join(folder, `stopped-${run}.sqlite`)
    const open = () =>
      createTestPanel({
        standard: false,
        plugins: [
          brandsPlugin(),
          customersPlugin(),
          nodesPlugin({ dataDir: join(folder, 'stopped') }),
          sitesPlugin(),
        ],
        storePath,
        jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
      })
    const first = await open()
    first.panel.start()
    const token = await first.token()
    const ask = (panel: TestPanel, method: string, path: string, body?: unknown) =>
      panel.request(method, `/api/v1${path}`, { token, ...(body === undefined ? {} : { body }) })
    const { agent, node } = await nodeWithPlayedAgent(first, token)
    const customer = await json<{ id: string }>(
      await ask(first, 'POST', '/customers', { name: 'Stopped' }),
      201,
    )
    const sites: string[] = []
    for (const name of ['one', 'two']) {
      const site = await json<{ id: string }>(
        await ask(first, 'POST', '/sites', {
          customerId: customer.id,
          name,
          type: 'wordpress',
          domain: `${name}-${run}.example.com`,
        }),
        201,
      )
      await agent.answer(await agent.command(site.id, 'provision'))
      sites.push(site.id)
    }
    const deleting = await json<Customer>(await ask(first, 'DELETE', `/customers/${customer.id}`), 202)
    // The node is told to delete the first site, and never answers: the instance stops with the job under way.
    await agent.command(sites[0] ?? '', 'delete')
    await first.panel.close()

    const second = await open()
    second.panel.start()
    try {
      const stillThere = await json<Customer>(await ask(second, 'GET', `/customers/${customer.id}`), 200)
      expect(stillThere).toMatchObject({ status: 'deleting', jobId: deleting.jobId })
      // The node answers this time, for every site the taken-up job deletes.
      const played = playAgent(second, node.agentToken)
      for (const id of sites) await played.answer(await played.command(id, 'delete'))
      await waitFor(
        'the customer to be gone',
        async () => {
          if ((await ask(second, 'GET', `/customers/${customer.id}`)).status === 404) return true
          await Bun.sleep(20)
          return false
        },
        30_000,
      )
      for (const id of sites) expect((await ask(second, 'GET', `/sites/${id}`)).status).toBe(404)
      const job = await json<{ status: string; attempts: number }>(
        await ask(second, 'GET', `/jobs/${deleting.jobId}`),
        200,
      )
      expect(job.status).toBe('succeeded')
    } finally {
      await second.panel.close()
    }
  }, 60_000)
})
