// The webhook endpoint operations as staff use them: create with a secret shown once, the SSRF guard's refusals,
// list, read, change, delete, rotate; brand staff confined to their brand; customers kept out.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  createTestPanel,
  createTestUser,
  expectFieldProblem,
  expectProblem,
  type Page,
  type TestPanel,
} from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import type { Webhook, WebhookWithSecret } from './contract.ts'
import { webhooksPlugin } from './index.ts'
import type { HostResolver } from './url-guard.ts'

/** A DNS of our own: names that resolve to a public address, to a private one, to both, and to nothing. */
const resolve: HostResolver = async (hostname) => {
  const answers: Record<string, { address: string; family: 4 | 6 }[]> = {
    'hooks.example.com': [{ address: '93.184.216.34', family: 4 }],
    'v6.example.com': [{ address: '2606:4700:4700::1111', family: 6 }],
    'internal.example.com': [{ address: '10.0.0.5', family: 4 }],
    'split.example.com': [
      { address: '93.184.216.34', family: 4 },
      { address: '::1', family: 6 },
    ],
    'metadata.example.com': [{ address: '169.254.169.254', family: 4 }],
  }
  const found = answers[hostname]
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
  return found
}

let tp: TestPanel
let token: string
let brandId: string
let brandToken: string
let otherBrandToken: string

beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [brandsPlugin(), customersPlugin(), webhooksPlugin({ resolve, allowedHosts: ['127.0.0.9'] })],
  })
  token = await tp.token()
  const brands: string[] = []
  for (const name of ['Reseller', 'Rival']) {
    const response = await tp.request('POST', '/api/v1/brands', { token, body: { name } })
    brands.push(((await response.json()) as { id: string }).id)
  }
  brandId = brands[0] ?? ''
  const staff = async (id: string, email: string) =>
    tp.token({ user: await createTestUser(tp.panel.store.db, { email, staffRole: 'brand', brandId: id }) })
  brandToken = await staff(brandId, 'reseller-staff@example.test')
  otherBrandToken = await staff(brands[1] ?? '', 'rival-staff@example.test')
})
afterAll(() => tp.panel.close())

const create = (body: Record<string, unknown>, as = token, headers: Record<string, string> = {}) =>
  tp.request('POST', '/api/v1/webhooks', { token: as, body, headers })

async function created(body: Record<string, unknown>, as = token): Promise<WebhookWithSecret> {
  const response = await create(body, as)
  expect(response.status).toBe(201)
  return (await response.json()) as WebhookWithSecret
}

async function list(as: string, query = ''): Promise<Webhook[]> {
  const response = await tp.request('GET', `/api/v1/webhooks?limit=100${query}`, { token: as })
  expect(response.status).toBe(200)
  return [...((await response.json()) as Page<Webhook>).items]
}

describe('creating an endpoint', () => {
  test('answers 201 with the endpoint, its Location and a whsec_ secret that is never shown again', async () => {
    const response = await create({
      url: 'https://hooks.example.com/plinth#ignored',
      events: ['customer.created', 'job.finished'],
      description: 'Billing sync',
    })
    expect(response.status).toBe(201)
    const endpoint = (await response.json()) as WebhookWithSecret
    expect(endpoint).toEqual({
      id: expect.stringMatching(/^whk_[0-9A-Z]{26}$/),
      url: 'https://hooks.example.com/plinth',
      description: 'Billing sync',
      events: ['customer.created', 'job.finished'],
      enabled: true,
      brandId: null,
      disabledReason: null,
      previousSecretExpiresAt: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    expect(response.headers.get('location')).toBe(`/api/v1/webhooks/${endpoint.id}`)
    const read = await tp.request('GET', `/api/v1/webhooks/${endpoint.id}`, { token })
    const { secret: _secret, ...withoutSecret } = endpoint
    expect(await read.json()).toEqual(withoutSecret)
    // Kept sealed: the secret is nowhere in the store in clear.
    const rows = await tp.panel.store.db
      .withTables<{ webhook_endpoints: { id: string; secret_sealed: string } }>()
      .selectFrom('webhook_endpoints')
      .select('secret_sealed')
      .where('id', '=', endpoint.id)
      .execute()
    expect(rows[0]?.secret_sealed).toStartWith('v1.')
    expect(rows[0]?.secret_sealed).not.toContain(endpoint.secret.slice(6))
  })

  test('`*` subscribes to every kind, and swallows the kinds listed beside it', async () => {
    const endpoint = await created({
      url: 'https://hooks.example.com/all',
      events: ['customer.created', '*'],
    })
    expect(endpoint.events).toEqual(['*'])
  })

  test('an IPv6 host that resolves to a public address is accepted', async () => {
    const endpoint = await created({ url: 'https://v6.example.com/hook', events: ['*'] })
    expect(endpoint.url).toBe('https://v6.example.com/hook')
  })

  test('is audited as webhook.create, without the secret', async () => {
    const endpoint = await created({ url: 'https://hooks.example.com/audited', events: ['*'] })
    const response = await tp.request('GET', `/api/v1/audit?subject=${endpoint.id}`, { token })
    const entries = ((await response.json()) as Page<{ action: string; details: unknown }>).items
    expect(entries.map((entry) => entry.action)).toEqual(['webhook.create'])
    expect(JSON.stringify(entries)).not.toContain(endpoint.secret)
  })

  test('with the same Idempotency-Key answers the same endpoint again and creates one', async () => {
    const headers = { 'idempotency-key': `hook-${crypto.randomUUID()}` }
    const body = { url: 'https://hooks.example.com/once', events: ['customer.created'] }
    const first = await create(body, token, headers)
    const second = await create(body, token, headers)
    expect(second.status).toBe(201)
    expect(second.headers.get('idempotent-replayed')).toBe('true')
    // The replay shows the secret again: no cache may keep it either.
    expect(second.headers.get('cache-control')).toBe('no-store')
    expect(await second.json()).toEqual(await first.json())
    expect((await list(token)).filter((item) => item.url === 'https://hooks.example.com/once')).toHaveLength(
      1,
    )
  })
})

describe('answers that show a secret', () => {
  test('creation and rotation are sent with Cache-Control: no-store; a plain read is not', async () => {
    const response = await create({ url: 'https://hooks.example.com/no-store', events: ['*'] })
    expect(response.status).toBe(201)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const { id } = (await response.json()) as WebhookWithSecret
    const rotated = await tp.request('POST', `/api/v1/webhooks/${id}/rotate-secret`, { token })
    expect(rotated.status).toBe(200)
    expect(rotated.headers.get('cache-control')).toBe('no-store')
    const read = await tp.request('GET', `/api/v1/webhooks/${id}`, { token })
    expect(read.status).toBe(200)
    expect(read.headers.get('cache-control')).toBeNull()
  })
})

describe('the SSRF guard refuses, with a code at body.url', () => {
  const refusals: [string, string][] = [
    ['http://hooks.example.com/plain', 'webhook_url_not_https'],
    ['ftp://hooks.example.com/', 'invalid_webhook_url'],
    ['not a url', 'invalid_webhook_url'],
    ['https://user:pass@hooks.example.com/', 'invalid_webhook_url'],
    ['https://hooks.example.com:0/', 'invalid_webhook_url'],
    ['https://127.0.0.1/', 'webhook_address_not_public'],
    ['https://0177.0.0.1/', 'webhook_address_not_public'],
    ['https://2130706433/', 'webhook_address_not_public'],
    ['https://[::1]/', 'webhook_address_not_public'],
    ['https://[::ffff:127.0.0.1]/', 'webhook_address_not_public'],
    ['https://[::ffff:10.1.2.3]/', 'webhook_address_not_public'],
    ['https://10.0.0.1/', 'webhook_address_not_public'],
    ['https://192.168.1.1/', 'webhook_address_not_public'],
    ['https://169.254.169.254/latest/meta-data', 'webhook_address_not_public'],
    ['https://100.64.0.1/', 'webhook_address_not_public'],
    ['https://[fd00::1]/', 'webhook_address_not_public'],
    ['https://internal.example.com/', 'webhook_address_not_public'],
    ['https://split.example.com/', 'webhook_address_not_public'],
    ['https://metadata.example.com/', 'webhook_address_not_public'],
    ['https://nowhere.example.com/', 'webhook_host_unresolvable'],
    // Listed hosts are matched exactly: other loopback forms are not exempt.
    ['http://127.0.0.1/', 'webhook_url_not_https'],
    ['http://127.0.0.2/', 'webhook_url_not_https'],
    ['http://[::1]/', 'webhook_url_not_https'],
    ['http://localhost/', 'webhook_url_not_https'],
  ]
  for (const [url, code] of refusals) {
    test(`${url} → ${code}`, async () => {
      await expectFieldProblem(await create({ url, events: ['*'] }), 422, code, 'body.url')
    })
  }

  test('an exempt host (WEBHOOK_ALLOWED_HOSTS) may use plain http on loopback', async () => {
    const endpoint = await created({ url: 'http://127.0.0.9:9/hooks', events: ['*'] })
    expect(endpoint.url).toBe('http://127.0.0.9:9/hooks')
  })

  test('a refused URL stores nothing', async () => {
    const before = (await list(token)).length
    await create({ url: 'https://10.0.0.1/', events: ['*'] })
    expect(await list(token)).toHaveLength(before)
  })
})

describe('validation', () => {
  test('an unknown event kind is 422 unknown_event_kind at its index', async () => {
    await expectFieldProblem(
      await create({ url: 'https://hooks.example.com/', events: ['customer.created', 'site.exploded'] }),
      422,
      'unknown_event_kind',
      'body.events.1',
    )
  })

  test('no kinds, repeated kinds and unknown fields are refused', async () => {
    const empty = await expectProblem(
      await create({ url: 'https://hooks.example.com/', events: [] }),
      422,
      'validation_failed',
    )
    expect(empty.errors).toEqual([
      expect.objectContaining({ location: 'body.events', code: 'too_few_items' }),
    ])
    const repeated = await expectProblem(
      await create({ url: 'https://hooks.example.com/', events: ['*', '*'] }),
      422,
      'validation_failed',
    )
    expect(repeated.errors).toEqual([
      expect.objectContaining({ location: 'body.events', code: 'duplicate_items' }),
    ])
    const unknown = await expectProblem(
      await create({ url: 'https://hooks.example.com/', events: ['*'], secret: 'whsec_mine' }),
      422,
      'validation_failed',
    )
    expect(unknown.errors).toEqual([
      expect.objectContaining({ location: 'body.secret', code: 'unknown_field' }),
    ])
  })

  test('a brandId that names no brand is 422 unknown_brand', async () => {
    await expectFieldProblem(
      await create({
        url: 'https://hooks.example.com/',
        events: ['*'],
        brandId: 'brd_01JDQ3V6Y4T1ZK0M2N5P7R9S8W',
      }),
      422,
      'unknown_brand',
      'body.brandId',
    )
  })
})

describe('changing, rotating and deleting', () => {
  test('PATCH changes url, kinds, description and enabled, checks the URL again, and audits the change', async () => {
    const endpoint = await created({ url: 'https://hooks.example.com/before', events: ['*'] })
    const refused = await tp.request('PATCH', `/api/v1/webhooks/${endpoint.id}`, {
      token,
      body: { url: 'https://internal.example.com/after' },
    })
    await expectFieldProblem(refused, 422, 'webhook_address_not_public', 'body.url')
    const response = await tp.request('PATCH', `/api/v1/webhooks/${endpoint.id}`, {
      token,
      body: {
        url: 'https://hooks.example.com/after',
        events: ['customer.updated'],
        enabled: false,
        description: null,
      },
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({
      url: 'https://hooks.example.com/after',
      events: ['customer.updated'],
      enabled: false,
      description: null,
    })
    expect((await list(token, '&enabled=false')).map((item) => item.id)).toContain(endpoint.id)
    expect((await list(token, '&enabled=true')).map((item) => item.id)).not.toContain(endpoint.id)
    const audit = await tp.request('GET', `/api/v1/audit?subject=${endpoint.id}&action=webhook.update`, {
      token,
    })
    expect(((await audit.json()) as Page<{ details: unknown }>).items[0]?.details).toEqual({
      url: 'https://hooks.example.com/after',
      events: ['customer.updated'],
      enabled: false,
    })
  })

  test('rotate-secret answers a new secret and keeps the old one signing for 24 hours', async () => {
    const endpoint = await created({ url: 'https://hooks.example.com/rotate', events: ['*'] })
    const response = await tp.request('POST', `/api/v1/webhooks/${endpoint.id}/rotate-secret`, { token })
    expect(response.status).toBe(200)
    const rotated = (await response.json()) as WebhookWithSecret
    expect(rotated.secret).toMatch(/^whsec_/)
    expect(rotated.secret).not.toBe(endpoint.secret)
    expect(rotated.previousSecretExpiresAt).not.toBeNull()
  })

  test('DELETE answers 204; the endpoint is then 404', async () => {
    const endpoint = await created({ url: 'https://hooks.example.com/bye', events: ['*'] })
    expect((await tp.request('DELETE', `/api/v1/webhooks/${endpoint.id}`, { token })).status).toBe(204)
    await expectProblem(
      await tp.request('GET', `/api/v1/webhooks/${endpoint.id}`, { token }),
      404,
      'not_found',
    )
    await expectProblem(
      await tp.request('DELETE', `/api/v1/webhooks/${endpoint.id}`, { token }),
      404,
      'not_found',
    )
  })
})

describe('who may', () => {
  test('brand staff create endpoints of their own brand and see only those', async () => {
    const own = await created({ url: 'https://hooks.example.com/brand', events: ['*'] }, brandToken)
    expect(own.brandId).toBe(brandId)
    const platformOwned = await created({ url: 'https://hooks.example.com/platform', events: ['*'] })
    const seen = await list(brandToken)
    expect(seen.map((item) => item.id)).toContain(own.id)
    expect(seen.every((item) => item.brandId === brandId)).toBe(true)
    for (const [method, path] of [
      ['GET', `/api/v1/webhooks/${platformOwned.id}`],
      ['PATCH', `/api/v1/webhooks/${platformOwned.id}`],
      ['DELETE', `/api/v1/webhooks/${platformOwned.id}`],
      ['POST', `/api/v1/webhooks/${platformOwned.id}/rotate-secret`],
      ['GET', `/api/v1/webhooks/${platformOwned.id}/deliveries`],
    ] as const) {
      const body = method === 'PATCH' ? { enabled: false } : undefined
      await expectProblem(await tp.request(method, path, { token: brandToken, body }), 404, 'not_found')
    }
    await expectProblem(
      await tp.request('GET', `/api/v1/webhooks/${own.id}`, { token: otherBrandToken }),
      404,
      'not_found',
    )
  })

  test('brand staff cannot place an endpoint in another brand', async () => {
    const rival = (await list(token)).find((item) => item.brandId !== null && item.brandId !== brandId)
    const anyOther = rival?.brandId ?? 'brd_01JDQ3V6Y4T1ZK0M2N5P7R9S8W'
    await expectFieldProblem(
      await create({ url: 'https://hooks.example.com/', events: ['*'], brandId: anyOther }, brandToken),
      422,
      'unknown_brand',
      'body.brandId',
    )
  })

  test('platform staff may scope an endpoint to a brand', async () => {
    const endpoint = await created({ url: 'https://hooks.example.com/for-brand', events: ['*'], brandId })
    expect(endpoint.brandId).toBe(brandId)
    expect((await list(brandToken)).map((item) => item.id)).toContain(endpoint.id)
  })

  test('a token limited to a customer is refused with 403 staff_only, whatever its creator may do', async () => {
    const customer = await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Limited' } })
    const customerId = ((await customer.json()) as { id: string }).id
    const limited = await tp.token({ customerId })
    await expectProblem(await tp.request('GET', '/api/v1/webhooks', { token: limited }), 403, 'staff_only')
    await expectProblem(
      await create({ url: 'https://hooks.example.com/', events: ['*'] }, limited),
      403,
      'staff_only',
    )
  })

  test('a team member is refused with 403', async () => {
    const member = await createTestUser(tp.panel.store.db, { email: 'member@example.test', staffRole: null })
    const memberToken = await tp.token({ user: member })
    const response = await tp.request('GET', '/api/v1/webhooks', { token: memberToken })
    expect(response.status).toBe(403)
  })

  test('a read-only staff token can list but not create', async () => {
    const reader = await tp.token({ scopes: ['webhook:read'] })
    expect((await tp.request('GET', '/api/v1/webhooks', { token: reader })).status).toBe(200)
    const refused = await expectProblem(
      await create({ url: 'https://hooks.example.com/', events: ['*'] }, reader),
      403,
      'insufficient_scope',
    )
    expect(refused.scope).toBe('webhook:manage')
  })
})

describe('the audit log', () => {
  /** The audit entries `as` sees, newest first. */
  async function auditSeenBy(as: string, query: string) {
    const response = await tp.request('GET', `/api/v1/audit?limit=100&${query}`, { token: as })
    expect(response.status).toBe(200)
    return (
      (await response.json()) as Page<{ action: string; subject: { id: string }; brandId: string | null }>
    ).items
  }

  test('brand staff see the webhook.create entry of their brand’s endpoint, and not one of another brand’s', async () => {
    const ours = await created({ url: 'https://hooks.example.com/audit-ours', events: ['*'] }, brandToken)
    const theirs = await created(
      { url: 'https://hooks.example.com/audit-theirs', events: ['*'] },
      otherBrandToken,
    )
    const seen = await auditSeenBy(brandToken, 'action=webhook.create')
    expect(seen.find((entry) => entry.subject.id === ours.id)?.brandId).toBe(brandId)
    expect(seen.map((entry) => entry.subject.id)).not.toContain(theirs.id)
    expect(
      (await auditSeenBy(otherBrandToken, 'action=webhook.create')).map((entry) => entry.subject.id),
    ).toContain(theirs.id)
  })

  test('every change of a brand’s endpoint is its brand’s entry, whoever made it', async () => {
    const endpoint = await created({ url: 'https://hooks.example.com/audit-all', events: ['*'], brandId })
    const path = `/api/v1/webhooks/${endpoint.id}`
    expect((await tp.request('PATCH', path, { token, body: { description: 'Changed' } })).status).toBe(200)
    expect((await tp.request('POST', `${path}/rotate-secret`, { token })).status).toBe(200)
    expect((await tp.request('DELETE', path, { token })).status).toBe(204)
    expect((await auditSeenBy(brandToken, `subject=${endpoint.id}`)).map((entry) => entry.action)).toEqual([
      'webhook.delete',
      'webhook.rotateSecret',
      'webhook.update',
      'webhook.create',
    ])
    expect(await auditSeenBy(otherBrandToken, `subject=${endpoint.id}`)).toEqual([])
  })
})

describe('the OpenAPI document', () => {
  test('lists the operations under the webhooks tag with their staff scopes', async () => {
    const document = (await (await tp.request('GET', '/api/docs')).json()) as {
      paths: Record<string, Record<string, { tags: string[]; security: Record<string, string[]>[] }>>
    }
    expect(document.paths['/api/v1/webhooks']?.post?.security).toContainEqual({
      apiToken: ['webhook:manage'],
    })
    expect(document.paths['/api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver']?.post?.tags).toEqual([
      'webhooks',
    ])
  })
})
