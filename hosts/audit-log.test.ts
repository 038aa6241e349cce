// GET /api/v1/audit on the standard installation: every change is there, newest first, filtered, within the view.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createUser } from '../core/host.ts'
import type { Page } from './testing/index.ts'
import { createTestPanel, expectProblem, type TestPanel } from './testing/index.ts'

interface Entry {
  readonly id: string
  readonly occurredAt: string
  readonly action: string
  readonly actor: { readonly userId: string | null; readonly tokenId: string | null }
  readonly subject: { readonly type: string; readonly id: string }
  readonly customerId: string | null
  readonly requestId: string | null
}

let tp: TestPanel
let staffToken: string
let customerA: string
let customerB: string
let siteA: string
let createSiteRequestId: string
const password = 'correct horse battery'

async function post(path: string, body: unknown, token = staffToken) {
  const response = await tp.request('POST', path, { token, body })
  expect(response.status).toBe(201)
  return {
    body: (await response.json()) as { id: string; userId?: string },
    requestId: response.headers.get('x-request-id') ?? '',
  }
}

async function audit(token: string, query = ''): Promise<readonly Entry[]> {
  const response = await tp.request('GET', `/api/v1/audit${query}`, { token })
  expect(response.status).toBe(200)
  return ((await response.json()) as Page<Entry>).items
}

beforeAll(async () => {
  tp = await createTestPanel()
  staffToken = await tp.token()
  await post('/api/v1/brands', { name: 'Reseller' })
  customerA = (await post('/api/v1/customers', { name: 'A' })).body.id
  customerB = (await post('/api/v1/customers', { name: 'B' })).body.id
  const site = await post('/api/v1/sites', {
    customerId: customerA,
    name: 'Blog',
    type: 'wordpress',
    domain: 'blog.a.example',
  })
  siteA = site.body.id
  createSiteRequestId = site.requestId
  await post('/api/v1/sites', {
    customerId: customerB,
    name: 'Shop',
    type: 'wordpress',
    domain: 'shop.b.example',
  })
})
afterAll(() => tp.panel.close())

describe('the audit log', () => {
  test('platform staff see every change, newest first, with actor, subject, customer and request id', async () => {
    const entries = await audit(staffToken)
    expect(entries.map((entry) => entry.action).slice(0, 5)).toEqual([
      'site.create',
      'site.create',
      'customer.create',
      'customer.create',
      'brand.create',
    ])
    expect([...entries.map((entry) => entry.id)].sort().reverse()).toEqual(entries.map((entry) => entry.id))
    const created = entries.find((entry) => entry.subject.id === siteA)
    expect(created).toMatchObject({
      action: 'site.create',
      subject: { type: 'site', id: siteA },
      customerId: customerA,
      requestId: createSiteRequestId,
      actor: { userId: expect.stringMatching(/^usr_/), tokenId: expect.stringMatching(/^tok_/) },
    })
  })

  test('filters by action, subject, actor and time narrow the list', async () => {
    expect((await audit(staffToken, '?action=site.create')).map((entry) => entry.action)).toEqual([
      'site.create',
      'site.create',
    ])
    expect((await audit(staffToken, `?subject=${siteA}`)).map((entry) => entry.subject.id)).toEqual([siteA])
    const [newest] = await audit(staffToken)
    const byActor = await audit(staffToken, `?actor=${newest?.actor.tokenId}`)
    expect(byActor.every((entry) => entry.actor.tokenId === newest?.actor.tokenId)).toBe(true)
    const future = new Date(Date.now() + 60_000).toISOString()
    expect(await audit(staffToken, `?since=${encodeURIComponent(future)}`)).toEqual([])
    expect((await audit(staffToken, `?until=${encodeURIComponent(future)}&action=brand.create`)).length).toBe(
      1,
    )
  })

  test('an owner sees only their customer’s entries; a developer may not read the log', async () => {
    const owner = await createUser(tp.panel.store.db, { email: 'owner@a.example', password, staffRole: null })
    const developer = await createUser(tp.panel.store.db, {
      email: 'dev@a.example',
      password,
      staffRole: null,
    })
    await post(`/api/v1/customers/${customerA}/members`, { email: owner.email, role: 'owner' })
    await post(`/api/v1/customers/${customerA}/members`, { email: developer.email, role: 'developer' })
    const entries = await audit(await tp.token({ user: owner }))
    expect(entries.length).toBeGreaterThan(0)
    expect(entries.every((entry) => entry.customerId === customerA)).toBe(true)
    // A filter naming another customer's resource narrows to nothing; it never widens.
    expect(
      await audit(await tp.token({ user: owner }), `?action=customer.create&subject=${customerB}`),
    ).toEqual([])
    const refused = await tp.request('GET', '/api/v1/audit', { token: await tp.token({ user: developer }) })
    expect((await expectProblem(refused, 403, 'insufficient_scope')).scope).toBe('audit:read')
  })

  test('malformed filters are 422 at query.<name>', async () => {
    for (const query of ['?actor=someone', '?since=yesterday', '?action=Site', '?who=me']) {
      const response = await tp.request('GET', `/api/v1/audit${query}`, { token: staffToken })
      await expectProblem(response, 422, 'validation_failed')
    }
  })
})
