// The `wordpress` site type through the API: the administrator in the create body and in the 201 answer (the
// password shown once, never in events), its refusals, and a node that only lays out files getting a placeholder.
// Serving WordPress for real is hosts/node-agent.test.ts's (the agent) and plugins/nodes/runtime's; operating on it,
// operations.test.ts's.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { definePlugin } from '../../core/index.ts'
import {
  createTestPanel,
  expectFieldProblem,
  expectProblem,
  type TestPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import { siteTypes } from '../sites/contract.ts'

/** A second site type beside WordPress, as another plugin would add one. */
const staticSiteTypePlugin = () =>
  definePlugin({
    name: 'static-sites',
    version: '1.0.0',
    description: 'Static sites, for the tests.',
    requires: ['sites'],
    setup(context) {
      context.extensionPoint(siteTypes).add({ name: 'plain', description: 'Plain files.' })
    },
  })

let tp: TestPanel
let token: string
let customerId: string

beforeAll(async () => {
  tp = await createTestPanel({
    plugins: [staticSiteTypePlugin()],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
  })
  tp.panel.start()
  token = await tp.token()
  const customer = await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Acme' } })
  customerId = ((await customer.json()) as { id: string }).id
})
afterAll(() => tp.panel.close())

const body = (extra: Record<string, unknown> = {}) => ({
  customerId,
  name: 'My Blog',
  type: 'wordpress',
  domain: `blog-${crypto.randomUUID().slice(0, 8)}.example.com`,
  ...extra,
})

describe('creating a WordPress site', () => {
  test('answers the administrator, with a generated password shown once, and never puts it in events', async () => {
    const response = await tp.request('POST', '/api/v1/sites', { token, body: body() })
    expect(response.status).toBe(201)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const site = (await response.json()) as {
      id: string
      jobId: string
      wordpress: { adminUser: string; adminPassword: string }
    }
    expect(site.wordpress).toEqual({
      adminUser: 'admin',
      adminPassword: expect.stringMatching(/^[A-Za-z0-9]{20}$/),
    })
    const read = (await (await tp.request('GET', `/api/v1/sites/${site.id}`, { token })).json()) as Record<
      string,
      unknown
    >
    expect(read.wordpress).toBeUndefined()
    const events = await tp.panel.store.db
      .withTables<{ event_outbox: { kind: string; payload: string } }>()
      .selectFrom('event_outbox')
      .select(['kind', 'payload'])
      .execute()
    const created = events.filter((event) => event.payload.includes(site.id))
    expect(created.length).toBeGreaterThan(0)
    for (const event of created) expect(event.payload).not.toContain(site.wordpress.adminPassword)
    // The test panel's local node lays out files only, and says so: the site is a placeholder, made without a database.
    const job = await waitFor('the provisioning', async () => {
      const answer = (await (await tp.request('GET', `/api/v1/jobs/${site.jobId}`, { token })).json()) as {
        status: string
      }
      return answer.status === 'succeeded' || answer.status === 'failed' ? answer : null
    })
    expect(job.status).toBe('succeeded')
    const nodes = (await (await tp.request('GET', '/api/v1/nodes', { token })).json()) as {
      items: { name: string; agent: { capabilities: { mode: string } | null } }[]
    }
    expect(nodes.items.find((node) => node.name === 'local')?.agent.capabilities?.mode).toBe('files-only')
    // So it has no WordPress to operate on (plugins/wordpress/operations.test.ts has a node that serves one).
    await expectProblem(
      await tp.request('GET', `/api/v1/sites/${site.id}/wordpress/plugins`, { token }),
      409,
      'wordpress_not_installed',
    )
  })

  test('a given password is not shown back; a weak one is refused at its field', async () => {
    const given = await tp.request('POST', '/api/v1/sites', {
      token,
      body: body({ wordpress: { adminUser: 'editor', adminPassword: 'Correct-Horse-9' } }),
    })
    expect(given.status).toBe(201)
    expect(((await given.json()) as { wordpress: unknown }).wordpress).toEqual({ adminUser: 'editor' })
    await expectFieldProblem(
      await tp.request('POST', '/api/v1/sites', {
        token,
        body: body({ wordpress: { adminPassword: 'password' } }),
      }),
      422,
      'weak_admin_password',
      'body.wordpress.adminPassword',
    )
  })

  test('WordPress options on a site of another type are refused, not dropped', async () => {
    await expectFieldProblem(
      await tp.request('POST', '/api/v1/sites', {
        token,
        body: body({ type: 'plain', wordpress: { adminUser: 'x' } }),
      }),
      422,
      'options_of_other_type',
      'body.wordpress',
    )
  })

  test('capabilities say what each site type needs', async () => {
    const answer = (await (await tp.request('GET', '/api/v1/capabilities', { token })).json()) as {
      installation: {
        plugins: { name: string; capabilities?: { siteTypes?: { name: string; requires: string[] }[] } }[]
      }
    }
    const types = answer.installation.plugins.find((plugin) => plugin.name === 'sites')?.capabilities
      ?.siteTypes
    expect(types).toContainEqual(
      expect.objectContaining({ name: 'wordpress', requires: ['nginx', 'php', 'wordpress', 'mariadb'] }),
    )
    expect(types).toContainEqual(expect.objectContaining({ name: 'plain', requires: [] }))
  })
})
