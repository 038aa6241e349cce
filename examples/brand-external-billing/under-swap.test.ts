// The brand's billing swapped in, with the real jobs and the local node: plan limits and suspension work as with
// the standard plugin, a late retry of an older callback changes nothing, and plans land in the deployment's brand.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { OutboxEvent } from '../../core/index.ts'
import {
  cookieOf,
  createTestPanel,
  createTestUser,
  expectProblem,
  type LoginBody,
  type Page,
  sameOrigin,
  type TestPanel,
  testPassword,
} from '../../hosts/testing/index.ts'
import type { Plan, Subscription } from '../../plugins/billing/contract.ts'
import type { Site } from '../../plugins/sites/contract.ts'
import { billingSystem, planUpdate, subscriptionUpdate } from './billing-system.ts'
import { openBrandPanel } from './deployment.ts'
import { eventRecorder } from './event-recorder.ts'
import { externalBillingPlugin } from './index.ts'

const secret = 'shared-with-the-billing-system-0123456789'
const checkoutUrl = 'https://shop.brand.example/plans'
const recorder = eventRecorder()
const { events } = recorder

let tp: TestPanel
let staffToken: string
let system: ReturnType<typeof billingSystem>
type Panel = Awaited<ReturnType<typeof openBrandPanel>>

beforeAll(async () => {
  tp = await createTestPanel({
    plugins: [recorder.plugin],
    overrides: [externalBillingPlugin({ secret, checkoutUrl })],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  staffToken = await tp.token()
  system = billingSystem((request) => tp.panel.handle(request), secret)
})
afterAll(() => tp.panel.close())

async function ok<T>(response: Response): Promise<T> {
  expect(response.status).toBe(200)
  return (await response.json()) as T
}

async function newCustomer(): Promise<string> {
  const response = await tp.request('POST', '/api/v1/customers', {
    token: staffToken,
    body: { name: 'Brand C' },
  })
  expect(response.status).toBe(201)
  return ((await response.json()) as { id: string }).id
}

let sequence = 0
function createSite(customerId: string): Promise<Response> {
  return tp.request('POST', '/api/v1/sites', {
    token: staffToken,
    body: { customerId, name: 'Shop', type: 'wordpress', domain: `brand${sequence++}.example.com` },
  })
}

async function site(id: string): Promise<Site> {
  return (await (await tp.request('GET', `/api/v1/sites/${id}`, { token: staffToken })).json()) as Site
}

async function settled(id: string, status: string): Promise<void> {
  const deadline = Date.now() + 5_000
  for (;;) {
    const current = await site(id)
    if (current.status === status && current.jobId) {
      const job = (await (
        await tp.request('GET', `/api/v1/jobs/${current.jobId}`, { token: staffToken })
      ).json()) as {
        status: string
      }
      if (job.status === 'succeeded') return
    }
    if (Date.now() > deadline) throw new Error(`site ${id} never settled as ${status}`)
    await Bun.sleep(10)
  }
}

async function eventually(kind: string, subjectId: string): Promise<OutboxEvent> {
  const deadline = Date.now() + 3_000
  for (;;) {
    const found = events.find((event) => event.kind === kind && event.data.id === subjectId)
    if (found) return found
    if (Date.now() > deadline) throw new Error(`no ${kind} for ${subjectId}`)
    await Bun.sleep(10)
  }
}

/** The customer's only subscription, as the customer reads it. */
async function subscriptionOf(customerId: string): Promise<Subscription> {
  const page = await ok<Page<Subscription>>(
    await tp.request('GET', '/api/v1/subscriptions', { token: await tp.token({ customerId }) }),
  )
  expect(page.items).toHaveLength(1)
  return page.items[0] as Subscription
}

describe('under the swap', () => {
  test('under the swap, plan limits and suspension work: site, limit, suspended, event, active again, removed', async () => {
    expect((await system.send(planUpdate('pkg-1', { sites: 1 }, 'One site'))).status).toBe(200)
    const customerId = await newCustomer()
    const state = (status: string, reason?: string) =>
      subscriptionUpdate({ externalId: 'svc-1', customerId, planExternalId: 'pkg-1', status, reason })
    expect((await system.send(state('active'))).status).toBe(200)
    const subscription = await subscriptionOf(customerId)
    expect(subscription).toMatchObject({ status: 'active', externalId: 'svc-1' })

    const running = (await (await createSite(customerId)).json()) as Site
    await settled(running.id, 'active')
    await expectProblem(await createSite(customerId), 422, 'site_limit_reached')

    expect((await system.send(state('suspended', 'card declined'))).status).toBe(200)
    await settled(running.id, 'suspended')
    await eventually('subscription.suspended', subscription.id)
    await expectProblem(await createSite(customerId), 422, 'customer_suspended')

    expect((await system.send(state('active'))).status).toBe(200)
    await settled(running.id, 'active')
    await eventually('subscription.unsuspended', subscription.id)

    const cancel = await system.send(state('cancelled'))
    expect(cancel.status).toBe(200)
    const gone = Date.now() + 5_000
    while ((await tp.request('GET', `/api/v1/sites/${running.id}`, { token: staffToken })).status !== 404) {
      if (Date.now() > gone) throw new Error('the cancelled customer’s site was never removed')
      await Bun.sleep(10)
    }
    // The removal's jobs were started on behalf of the callback that asked for it.
    const removed = await ok<Page<{ requestId: string | null }>>(
      await tp.request('GET', `/api/v1/audit?subject=${running.id}&action=site.remove`, {
        token: staffToken,
      }),
    )
    expect(removed.items[0]?.requestId).toBe(cancel.headers.get('x-request-id'))
    await expectProblem(await system.send(state('active')), 409, 'illegal_subscription_transition')
  })

  test('plans are a staff area here too, mirrored from the billing system', async () => {
    const plans = await ok<Page<{ name: string; limits: Record<string, number> }>>(
      await tp.request('GET', '/api/v1/plans?limit=100', { token: staffToken }),
    )
    expect(plans.items).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'One site', limits: { sites: 1 } })]),
    )
    const member = await createTestUser(tp.panel.store.db, { email: 'm@brand.example', staffRole: null })
    await expectProblem(
      await tp.request('GET', '/api/v1/plans', { token: await tp.token({ user: member }) }),
      403,
      'staff_only',
    )
  })

  test('a late retry of an older callback under a new id does not undo a newer one: an old active never reactivates a suspended subscription', async () => {
    await ok(await system.send(planUpdate('pkg-order', { sites: 1 })))
    const customerId = await newCustomer()
    const state = (status: string) =>
      subscriptionUpdate({ externalId: 'svc-order', customerId, planExternalId: 'pkg-order', status })
    const early = new Date(Date.now() - 60_000).toISOString()
    expect(await ok(await system.send({ ...state('active'), occurredAt: early }))).toMatchObject({
      stale: false,
    })
    const running = (await (await createSite(customerId)).json()) as Site
    await settled(running.id, 'active')
    expect(await ok(await system.send(state('suspended')))).toMatchObject({ stale: false })
    await settled(running.id, 'suspended')
    // The billing system retries its first `active`, as a new delivery with a new id.
    const late = await ok(await system.send({ ...state('active'), occurredAt: early }))
    expect(late).toMatchObject({ duplicate: false, stale: true })
    expect((await subscriptionOf(customerId)).status).toBe('suspended')
    expect((await site(running.id)).status).toBe('suspended')
    // Plans too: an older announcement does not bring back old limits.
    expect(
      await ok(await system.send({ ...planUpdate('pkg-order', { sites: 9 }), occurredAt: early })),
    ).toMatchObject({
      stale: true,
    })
    const plans = await ok<Page<Plan>>(
      await tp.request('GET', '/api/v1/plans?limit=100', { token: staffToken }),
    )
    expect(plans.items.find((plan) => plan.limits.sites === 9)).toBeUndefined()
  })
})

describe('the brand a deployment bills for', () => {
  test('plans land in the brand the deployment names, not the default one, and only its customers subscribe to them', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'plinth-brand-of-billing-'))
    const open = (brandId?: string) =>
      openBrandPanel({ dataDir, billing: { secret, checkoutUrl, ...(brandId ? { brandId } : {}) } })
    // The operator makes the brand first, then names it in the deployment.
    const first = await open()
    const user = await createTestUser(first.store.db, { email: 'ops@brand.example', staffRole: 'platform' })
    const send = (
      panel: Panel,
      method: string,
      url: string,
      headers: Record<string, string>,
      body?: unknown,
    ) =>
      panel.handle(
        new Request(`http://localhost/api/v1${url}`, {
          method,
          headers: { 'content-type': 'application/json', ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      )
    const login = await send(first, 'POST', '/auth/login', {}, { email: user.email, password: testPassword })
    const session = { cookie: cookieOf(login), csrfToken: ((await login.json()) as LoginBody).csrfToken }
    const api = (panel: Panel, method: string, url: string, body?: unknown) =>
      send(panel, method, url, sameOrigin(session), body)
    const brand = (await (await api(first, 'POST', '/brands', { name: 'Reseller' })).json()) as { id: string }
    await first.close()

    const panel = await open(brand.id)
    const reseller = billingSystem((request) => panel.handle(request), secret)
    try {
      await ok(await reseller.send(planUpdate('pkg-reseller', { sites: 2 }, 'Reseller basic')))
      const plans = await ok<Page<Plan>>(await api(panel, 'GET', '/plans?limit=100'))
      expect(plans.items.find((plan) => plan.name === 'Reseller basic')?.brandId).toBe(brand.id)
      const theirs = (await (
        await api(panel, 'POST', '/customers', { name: 'R', brandId: brand.id })
      ).json()) as {
        id: string
      }
      const defaults = (await (await api(panel, 'POST', '/customers', { name: 'D' })).json()) as {
        id: string
      }
      const subscribe = (customerId: string, externalId: string) =>
        reseller.send(
          subscriptionUpdate({ externalId, customerId, planExternalId: 'pkg-reseller', status: 'active' }),
        )
      expect((await subscribe(theirs.id, 'svc-r')).status).toBe(200)
      await expectProblem(await subscribe(defaults.id, 'svc-d'), 422, 'unknown_callback_reference')
    } finally {
      await panel.close()
    }
  })
})
