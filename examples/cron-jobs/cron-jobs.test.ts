// The scheduled-tasks plugin as a client meets it, mounted beside the standard plugins: its operations, who may use
// them, its refusals, its events and audit entries, and its tasks leaving with their site.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  createTestPanel,
  createTestUser,
  expectFieldProblem,
  expectProblem,
  type Page,
  type TestPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import { cronJobsPlugin } from './index.ts'

interface Task {
  readonly id: string
  readonly siteId: string
  readonly customerId: string
  readonly schedule: string
  readonly command: string
}

let tp: TestPanel
let staff: string
let customerId: string
let siteId: string

const tasks = (site = siteId) => `/api/v1/sites/${site}/cron-jobs`

async function json<T>(response: Response, status = 200): Promise<T> {
  expect(response.status).toBe(status)
  return (await response.json()) as T
}

/** A site of `customer`, once its provisioning made it active. */
async function activeSite(customer: string): Promise<string> {
  const body = {
    customerId: customer,
    name: 'Shop',
    type: 'wordpress',
    domain: `${crypto.randomUUID()}.example`,
  }
  const site = await json<{ id: string }>(
    await tp.request('POST', '/api/v1/sites', { token: staff, body }),
    201,
  )
  await waitFor('the site to be active', async () => {
    const read = await json<{ status: string }>(
      await tp.request('GET', `/api/v1/sites/${site.id}`, { token: staff }),
    )
    return read.status === 'active'
  })
  return site.id
}

async function newCustomer(name: string): Promise<string> {
  return (
    await json<{ id: string }>(
      await tp.request('POST', '/api/v1/customers', { token: staff, body: { name } }),
      201,
    )
  ).id
}

beforeAll(async () => {
  tp = await createTestPanel({
    plugins: [cronJobsPlugin()],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  staff = await tp.token()
  customerId = await newCustomer('Acme')
  siteId = await activeSite(customerId)
})
afterAll(() => tp.panel.close())

describe('a site’s scheduled tasks', () => {
  test('are created (201, Location), listed, read, changed and removed, each audited and announced', async () => {
    const created = await tp.request('POST', tasks(), {
      token: staff,
      body: { schedule: '*/15 * * * *', command: '  php wp-cron.php  ' },
    })
    const task = await json<Task>(created, 201)
    expect(created.headers.get('location')).toBe(`/api/v1/sites/${siteId}/cron-jobs/${task.id}`)
    expect(task).toMatchObject({ siteId, customerId, schedule: '*/15 * * * *', command: 'php wp-cron.php' })
    expect(task.id).toMatch(/^cron_[0-9A-Z]{26}$/)

    const page = await json<Page<Task>>(await tp.request('GET', tasks(), { token: staff }))
    expect(page).toEqual({ items: [task], nextCursor: null })
    expect(await json<Task>(await tp.request('GET', `${tasks()}/${task.id}`, { token: staff }))).toEqual(task)

    const changed = await json<Task & { updatedAt: string }>(
      await tp.request('PATCH', `${tasks()}/${task.id}`, { token: staff, body: { schedule: '@daily' } }),
    )
    expect(changed).toMatchObject({ id: task.id, schedule: '@daily', command: 'php wp-cron.php' })

    expect((await tp.request('DELETE', `${tasks()}/${task.id}`, { token: staff })).status).toBe(204)
    await expectProblem(await tp.request('GET', `${tasks()}/${task.id}`, { token: staff }), 404, 'not_found')

    const audit = await json<Page<{ action: string; customerId: string }>>(
      await tp.request('GET', `/api/v1/audit?subject=${task.id}`, { token: staff }),
    )
    expect(audit.items.map((entry) => entry.action)).toEqual(['cron.delete', 'cron.update', 'cron.create'])
    expect(audit.items.every((entry) => entry.customerId === customerId)).toBe(true)
    const events = await tp.panel.store.db
      .withTables<{ event_outbox: { id: string; kind: string; payload: string } }>()
      .selectFrom('event_outbox')
      .select(['kind', 'payload'])
      .where('kind', 'like', 'cron.%')
      .orderBy('id')
      .execute()
    expect(events.map((event) => event.kind)).toEqual(['cron.created', 'cron.updated', 'cron.deleted'])
    expect(JSON.parse(events[0]?.payload ?? '{}')).toEqual(task)
  })

  test('refuse a bad schedule with invalid_schedule at its field, and report every faulty field together', async () => {
    await expectFieldProblem(
      await tp.request('POST', tasks(), { token: staff, body: { schedule: '61 * * * *', command: 'true' } }),
      422,
      'invalid_schedule',
      'body.schedule',
    )
    const both = await expectProblem(
      await tp.request('POST', tasks(), { token: staff, body: { schedule: 'often', command: '   ' } }),
      422,
      'validation_failed',
    )
    expect(both.errors).toEqual([
      expect.objectContaining({ location: 'body.schedule', code: 'invalid_schedule' }),
      expect.objectContaining({ location: 'body.command', code: 'too_short' }),
    ])
    expect((await json<Page<Task>>(await tp.request('GET', tasks(), { token: staff }))).items).toEqual([])
  })

  test('are refused with site_unavailable on a site that is not active or suspended', async () => {
    const body = { customerId, name: 'New', type: 'wordpress', domain: `${crypto.randomUUID()}.example` }
    const provisioning = await json<{ id: string }>(
      await tp.request('POST', '/api/v1/sites', { token: staff, body }),
      201,
    )
    await expectProblem(
      await tp.request('POST', tasks(provisioning.id), {
        token: staff,
        body: { schedule: '@hourly', command: 'x' },
      }),
      409,
      'site_unavailable',
    )
  })

  test('leave with their site', async () => {
    const doomed = await activeSite(customerId)
    const task = await json<Task>(
      await tp.request('POST', tasks(doomed), { token: staff, body: { schedule: '@hourly', command: 'x' } }),
      201,
    )
    expect((await tp.request('DELETE', `/api/v1/sites/${doomed}`, { token: staff })).status).toBe(202)
    await waitFor('the task to leave with its site', async () => {
      const left = await tp.panel.store.db
        .withTables<{ cron_jobs: { id: string } }>()
        .selectFrom('cron_jobs')
        .select('id')
        .where('id', '=', task.id)
        .executeTakeFirst()
      return left === undefined
    })
  })
})

describe('who may', () => {
  test('developers of the customer read and manage its tasks; its billing members may not; others see nothing', async () => {
    const developer = await createTestUser(tp.panel.store.db, { email: 'dev@acme.example', staffRole: null })
    const billing = await createTestUser(tp.panel.store.db, {
      email: 'billing@acme.example',
      staffRole: null,
    })
    for (const [user, role] of [
      [developer, 'developer'],
      [billing, 'billing'],
    ] as const) {
      const body = { email: user.email, role }
      expect(
        (await tp.request('POST', `/api/v1/customers/${customerId}/members`, { token: staff, body })).status,
      ).toBe(201)
    }
    const devToken = await tp.token({ user: developer, scopes: ['*'] })
    const created = await tp.request('POST', tasks(), {
      token: devToken,
      body: { schedule: '0 3 * * *', command: 'backup' },
    })
    const task = await json<Task>(created, 201)
    expect((await tp.request('GET', `${tasks()}/${task.id}`, { token: devToken })).status).toBe(200)

    const billingToken = await tp.token({ user: billing, scopes: ['*'] })
    await expectProblem(await tp.request('GET', tasks(), { token: billingToken }), 403, 'insufficient_scope')

    // Another customer's staff-limited token sees neither the site nor its task, and a task under another site is 404.
    const other = await newCustomer('Other')
    const limited = await tp.token({ customerId: other })
    await expectProblem(await tp.request('GET', tasks(), { token: limited }), 404, 'not_found')
    await expectProblem(
      await tp.request('GET', `${tasks()}/${task.id}`, { token: limited }),
      404,
      'not_found',
    )
    const otherSite = await activeSite(other)
    await expectProblem(
      await tp.request('GET', `${tasks(otherSite)}/${task.id}`, { token: staff }),
      404,
      'not_found',
    )
  })

  test('the scopes reach developers in the roles table, the document and capabilities', async () => {
    const owner = tp.panel.catalogue.roles.find((entry) => entry.role === 'developer')
    expect(owner?.scopes).toEqual(expect.arrayContaining(['cron:read', 'cron:manage']))
    const document = tp.panel.document as { paths: Record<string, unknown> }
    expect(Object.keys(document.paths)).toContain('/api/v1/sites/{id}/cron-jobs/{cronJobId}')
    const capabilities = await json<{ installation: { plugins: { name: string }[]; eventKinds: string[] } }>(
      await tp.request('GET', '/api/v1/capabilities', { token: staff }),
    )
    expect(capabilities.installation.plugins.map((plugin) => plugin.name)).toContain('cron-jobs')
    expect(capabilities.installation.eventKinds).toEqual(
      expect.arrayContaining(['cron.created', 'cron.deleted']),
    )
  })
})
