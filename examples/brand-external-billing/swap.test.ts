// The brand's billing swapped in for the standard one, from outside: only public contracts imported, the OpenAPI
// document shows the swap, signed callbacks drive subscriptions, and plan limits and suspension work as before.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { createPanel, type OutboxEvent, openSqliteStore, type Page } from '../../core/index.ts'
import { createTestPanel, type TestPanel } from '../../core/testing/create-test-panel.ts'
import { expectProblem } from '../../core/testing/problems.ts'
import { createTestUser } from '../../core/testing/users.ts'
import { billingPlugin } from '../../plugins/billing/index.ts'
import type { Site } from '../../plugins/sites/contract.ts'
import { brandPlugins, openBrandPanel } from './deployment.ts'
import { signatureHeader, signCallback } from './signature.ts'

const root = resolve(import.meta.dir, '..', '..')
const secret = 'shared-with-the-billing-system-0123456789'
const checkoutUrl = 'https://shop.brand.example/plans'
const dataDir = mkdtempSync(join(tmpdir(), 'plinth-brand-billing-'))
const events: OutboxEvent[] = []

let tp: TestPanel
let staffToken: string
let callbackCount = 0

beforeAll(async () => {
  const { plugins, overrides } = brandPlugins({ dataDir, billingSecret: secret, checkoutUrl })
  tp = await createTestPanel({
    plugins: [
      ...plugins,
      {
        name: 'event-recorder',
        version: '1.0.0',
        description: 'Keeps every event the outbox hands over.',
        setup(context) {
          context.consumeEvents({ name: 'recorder', receive: async (_trx, event) => void events.push(event) })
        },
      },
    ],
    overrides,
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  staffToken = await tp.token()
})
afterAll(() => tp.panel.close())

/** Sends a callback as the billing system would: signed now, unless told otherwise. */
function callback(
  body: Record<string, unknown>,
  options: { at?: number; key?: string; raw?: string } = {},
): Promise<Response> {
  const text = options.raw ?? JSON.stringify({ id: `evt-${callbackCount++}`, ...body })
  const at = options.at ?? Math.floor(Date.now() / 1000)
  return tp.request('POST', '/api/v1/billing/callbacks', {
    body: text,
    headers: { [signatureHeader]: signCallback(options.key ?? secret, at, text) },
  })
}

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

async function settled(id: string, status: string): Promise<void> {
  const deadline = Date.now() + 5_000
  for (;;) {
    const site = (await (
      await tp.request('GET', `/api/v1/sites/${id}`, { token: staffToken })
    ).json()) as Site
    if (site.status === status && site.jobId) {
      const job = (await (
        await tp.request('GET', `/api/v1/jobs/${site.jobId}`, { token: staffToken })
      ).json()) as {
        status: string
      }
      if (job.status === 'succeeded') return
    }
    if (Date.now() > deadline) throw new Error(`site ${id} never settled as ${status}`)
    await Bun.sleep(10)
  }
}

function subscriptionUpdate(data: Record<string, unknown>) {
  return { type: 'subscription.updated', data }
}

describe('swapping billing from outside', () => {
  test('the example imports only the kernel’s contract and the plugins’ public files, and core/, plugins/ and hosts/ never import it', () => {
    const importPattern = /(?:^|\s)(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/g
    const here = relative(root, import.meta.dir)
    const offending: string[] = []
    for (const file of new Bun.Glob(`${here}/*.ts`).scanSync({ cwd: root })) {
      if (file.endsWith('.test.ts')) continue
      for (const match of readFileSync(join(root, file), 'utf8').matchAll(importPattern)) {
        const specifier = match[1] ?? ''
        if (!specifier.startsWith('.')) continue
        const target = relative(root, resolve(root, dirname(file), specifier))
        const allowed =
          target === 'core/index.ts' ||
          /^plugins\/[^/]+\/contract\.ts$/.test(target) ||
          (file.endsWith('deployment.ts') && /^plugins\/[^/]+\/index\.ts$/.test(target)) ||
          target.startsWith(`${here}/`)
        if (!allowed) offending.push(`${file} → ${target}`)
      }
    }
    expect(offending).toEqual([])
    const fromOutside = [...new Bun.Glob('{core,plugins,hosts}/**/*.ts').scanSync({ cwd: root })].filter(
      (file) =>
        [...readFileSync(join(root, file), 'utf8').matchAll(importPattern)].some((match) =>
          (match[1] ?? '').includes('examples/'),
        ),
    )
    expect(fromOutside).toEqual([])
  })

  test('the OpenAPI document and capabilities describe the brand’s billing, not the standard one', async () => {
    const document = (await (await tp.request('GET', '/api/docs')).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>
      tags: { name: string; description: string }[]
      'x-scopes': { name: string }[]
    }
    expect(document.paths['/api/v1/billing/callbacks']?.post).toBeDefined()
    expect(document.paths['/api/v1/subscriptions']?.post).toBeUndefined()
    expect(document.paths['/api/v1/subscriptions/{id}/suspend']).toBeUndefined()
    expect(document.paths['/api/v1/checkout']?.post?.responses['403']?.description).toContain(
      'checkout_external',
    )
    expect(document.tags.find((tag) => tag.name === 'billing')?.description).toContain('signed callbacks')
    const scopes = document['x-scopes'].map((scope) => scope.name)
    expect(scopes).toEqual(
      expect.arrayContaining(['plan:read', 'plan:manage', 'billing:read', 'billing:manage']),
    )
    const capabilities = (await (
      await tp.request('GET', '/api/v1/capabilities', { token: staffToken })
    ).json()) as {
      installation: { plugins: { name: string; version: string; capabilities: Record<string, unknown> }[] }
    }
    expect(capabilities.installation.plugins.find((plugin) => plugin.name === 'billing')).toEqual({
      name: 'billing',
      version: '1.0.0',
      capabilities: { checkout: 'external', checkoutUrl },
    })
  })

  test('the deployment opens as a panel of its own', async () => {
    const panel = await openBrandPanel({
      store: openSqliteStore({ path: ':memory:' }),
      dataDir,
      secret: 'brand-panel-secret-brand-panel-secret!',
      billingSecret: secret,
      checkoutUrl,
    })
    expect(panel.plugins.find((plugin) => plugin.name === 'billing')?.version).toBe('1.0.0')
    await panel.close()
  })

  test('an override that drops a scope of the standard billing is refused at start-up', async () => {
    const narrower = { ...billingPlugin(), version: '9.9.9', scopes: [] }
    const { plugins } = brandPlugins({ dataDir, billingSecret: secret, checkoutUrl })
    await expect(
      createPanel({
        store: openSqliteStore({ path: ':memory:' }),
        plugins,
        overrides: [narrower],
        secret: 'brand-panel-secret-brand-panel-secret!',
      }),
    ).rejects.toThrow(/does not honour the contract.*plan:read/)
  })
})

describe('callbacks', () => {
  test('customers are sent to the brand’s shop: checkout is 403 checkout_external with checkoutUrl', async () => {
    const customerId = await newCustomer()
    const refused = await expectProblem(
      await tp.request('POST', '/api/v1/checkout', { token: staffToken, body: { customerId, planId: 'x' } }),
      403,
      'checkout_external',
    )
    expect((refused as unknown as { checkoutUrl: string }).checkoutUrl).toBe(checkoutUrl)
  })

  test('a wrong signature is 401 invalid_callback_signature; an old one 401 stale_callback', async () => {
    const plan = { type: 'plan.updated', data: { externalId: 'pkg-x', name: 'X', limits: {} } }
    await expectProblem(await callback(plan, { key: 'not-the-secret' }), 401, 'invalid_callback_signature')
    await expectProblem(
      await tp.request('POST', '/api/v1/billing/callbacks', {
        body: JSON.stringify({ id: 'unsigned', ...plan }),
      }),
      401,
      'invalid_callback_signature',
    )
    await expectProblem(
      await callback(plan, { at: Math.floor(Date.now() / 1000) - 600 }),
      401,
      'stale_callback',
    )
  })

  test('a replayed callback is acknowledged as a duplicate and changes nothing', async () => {
    const raw = JSON.stringify({
      id: 'evt-replayed',
      type: 'plan.updated',
      data: { externalId: 'pkg-replay', name: 'Replay', limits: { sites: 1 } },
    })
    expect(await ok(await callback({}, { raw }))).toEqual({ id: 'evt-replayed', duplicate: false })
    expect(await ok(await callback({}, { raw }))).toEqual({ id: 'evt-replayed', duplicate: true })
    const audit = await ok<Page<{ action: string }>>(
      await tp.request('GET', '/api/v1/audit?action=plan.create&limit=100', { token: staffToken }),
    )
    expect(audit.items.filter((entry) => JSON.stringify(entry).includes('evt-replayed'))).toHaveLength(1)
  })

  test('a subscription naming an unknown customer or plan is 422 unknown_callback_reference', async () => {
    await expectProblem(
      await callback(
        subscriptionUpdate({
          externalId: 'svc-unknown',
          customerId: 'cus_01JDQ3V6Y4T1ZK0M2N5P7R9S8W',
          planExternalId: 'pkg-replay',
          status: 'active',
        }),
      ),
      422,
      'unknown_callback_reference',
    )
    await expectProblem(
      await callback(
        subscriptionUpdate({
          externalId: 'svc-unknown',
          customerId: await newCustomer(),
          planExternalId: 'none',
          status: 'active',
        }),
      ),
      422,
      'unknown_callback_reference',
    )
  })

  test('under the swap, plan limits and suspension work: site, limit, suspended, event, active again, removed', async () => {
    expect(
      (
        await callback({
          type: 'plan.updated',
          data: { externalId: 'pkg-1', name: 'One site', limits: { sites: 1 } },
        })
      ).status,
    ).toBe(200)
    const customerId = await newCustomer()
    const activate = subscriptionUpdate({
      externalId: 'svc-1',
      customerId,
      planExternalId: 'pkg-1',
      status: 'active',
    })
    expect((await callback(activate)).status).toBe(200)
    const subscriptions = await ok<Page<{ id: string; status: string; externalId: string }>>(
      await tp.request('GET', '/api/v1/subscriptions', { token: await tp.token({ customerId }) }),
    )
    expect(subscriptions.items).toEqual([expect.objectContaining({ status: 'active', externalId: 'svc-1' })])
    const subscriptionId = subscriptions.items[0]?.id ?? ''

    const site = (await (await createSite(customerId)).json()) as Site
    await settled(site.id, 'active')
    await expectProblem(await createSite(customerId), 422, 'site_limit_reached')

    const suspend = subscriptionUpdate({
      externalId: 'svc-1',
      customerId,
      planExternalId: 'pkg-1',
      status: 'suspended',
      reason: 'card declined',
    })
    expect((await callback(suspend)).status).toBe(200)
    await settled(site.id, 'suspended')
    const deadline = Date.now() + 3_000
    while (
      !events.some((event) => event.kind === 'subscription.suspended' && event.data.id === subscriptionId)
    ) {
      if (Date.now() > deadline) throw new Error('no subscription.suspended event')
      await Bun.sleep(10)
    }
    await expectProblem(await createSite(customerId), 422, 'customer_suspended')

    expect((await callback(activate)).status).toBe(200)
    await settled(site.id, 'active')
    expect(
      events.some((event) => event.kind === 'subscription.unsuspended' && event.data.id === subscriptionId),
    ).toBe(true)

    const cancel = subscriptionUpdate({
      externalId: 'svc-1',
      customerId,
      planExternalId: 'pkg-1',
      status: 'cancelled',
    })
    expect((await callback(cancel)).status).toBe(200)
    const gone = Date.now() + 5_000
    while ((await tp.request('GET', `/api/v1/sites/${site.id}`, { token: staffToken })).status !== 404) {
      if (Date.now() > gone) throw new Error('the cancelled customer’s site was never removed')
      await Bun.sleep(10)
    }
    await expectProblem(await callback(activate), 409, 'illegal_subscription_transition')
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
})
