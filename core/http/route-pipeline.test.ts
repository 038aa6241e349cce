// The request pipeline, black-box through panel.handle: every kernel refusal as a client sees it.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Type as t } from '@sinclair/typebox'
import type { AuditTables } from '../audit/audit-tables.ts'
import type { OutboxTables } from '../events/outbox-tables.ts'
import type { IdentityTables } from '../identity/identity-tables.ts'
import { definePlugin } from '../plugin/define-plugin.ts'
import { defineRoute, Reply } from '../plugin/route.ts'
import { createKernelTestPanel, type TestPanel } from '../testing/create-test-panel.ts'

type GadgetTables = { gadgets: { id: string; name: string } }

/** A plugin shaped like a real one, so the pipeline is tested without importing plugins/. */
const gadgetsPlugin = definePlugin({
  name: 'gadgets',
  version: '1.0.0',
  description: 'Test gadgets.',
  scopes: [
    { name: 'gadget:read', description: 'Read gadgets' },
    { name: 'gadget:create', description: 'Create gadgets' },
    { name: 'gadget:admin', description: 'Administer gadgets', staff: true },
  ],
  events: [
    { kind: 'gadget.created', description: 'A gadget was created.', payload: t.Object({ id: t.String() }) },
  ],
  migrations: [
    {
      id: '0001_gadgets',
      up: (db) =>
        db.schema
          .createTable('gadgets')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('name', 'text')
          .execute(),
    },
  ],
  routes: (context) => [
    defineRoute({
      method: 'POST',
      idempotent: false,
      path: '/gadgets',
      operationId: 'createGadget',
      summary: 'Create a gadget',
      scope: 'gadget:create',
      body: t.Object({
        name: t.String({ minLength: 1, maxLength: 10 }),
        limits: t.Optional(t.Object({ sizeMB: t.Integer({ minimum: 0 }) })),
        tags: t.Optional(t.Array(t.String(), { maxItems: 2 })),
        kind: t.Optional(t.Union([t.Literal('small'), t.Literal('large')])),
      }),
      responses: { 201: { description: 'Created.' } },
      async handler({ body, audit, emit }) {
        return context.transaction(async (trx) => {
          const id = `gad_${crypto.randomUUID()}`
          await trx.withTables<GadgetTables>().insertInto('gadgets').values({ id, name: body.name }).execute()
          await audit(trx, { action: 'gadget.create', subject: { type: 'gadget', id }, customerId: null })
          await emit(trx, { kind: 'gadget.created', customerId: null, data: { id } })
          // A failure after the writes: everything above must roll back with it.
          if (body.name === 'explode') throw new Error('secret internal detail')
          return Reply.created({ id }, `/gadgets/${id}`)
        })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/gadgets/:id',
      operationId: 'getGadget',
      summary: 'Read a gadget',
      scope: 'gadget:read',
      params: t.Object({ id: t.String({ pattern: '^gad_' }) }),
      query: t.Object({ limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20 })) }),
      responses: { 200: { description: 'The gadget.' } },
      handler: ({ params, query }) => ({ id: params.id, limit: query.limit }),
    }),
    defineRoute({
      method: 'POST',
      path: '/gadgets/:id/polish',
      operationId: 'polishGadget',
      summary: 'An action whose body fields are all optional',
      scope: 'gadget:create',
      params: t.Object({ id: t.String({ pattern: '^gad_' }) }),
      body: t.Object({ shine: t.Optional(t.Integer({ minimum: 1, maximum: 3 })) }),
      audited: false,
      responses: { 200: { description: 'Polished.' } },
      handler: ({ params, body }) => ({ id: params.id, shine: body.shine ?? 1 }),
    }),
    defineRoute({
      method: 'GET',
      path: '/gadget-admin/forgetful',
      operationId: 'gadgetAdminForgetful',
      summary: 'A staff scope on a route that forgot staff: true',
      scope: 'gadget:admin',
      responses: { 200: { description: 'ok' } },
      handler: () => ({ ok: true }),
    }),
    defineRoute({
      method: 'GET',
      path: '/gadget-admin',
      operationId: 'gadgetAdmin',
      summary: 'Staff area',
      scope: 'gadget:admin',
      staff: true,
      responses: { 200: { description: 'ok' } },
      handler: () => ({ ok: true }),
    }),
  ],
})

let tp: TestPanel
let token: string
const kernel = () =>
  tp.panel.store.db.withTables<AuditTables & IdentityTables & OutboxTables & GadgetTables>()

beforeAll(async () => {
  tp = await createKernelTestPanel({ plugins: [gadgetsPlugin], limits: { bodyBytes: 512 } })
  token = await tp.token()
})
afterAll(() => tp.panel.close())

async function problem(response: Response) {
  expect(response.headers.get('content-type')).toBe('application/problem+json')
  const body = (await response.json()) as Record<string, unknown>
  expect(body.type).toBe('about:blank')
  expect(body.status).toBe(response.status)
  expect(body.requestId).toBe(response.headers.get('x-request-id') ?? '')
  return body
}

describe('authentication', () => {
  test('no credentials is 401 unauthenticated with a Bearer challenge', async () => {
    const response = await tp.request('GET', '/api/v1/gadgets/gad_1')
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toStartWith('Bearer')
    expect((await problem(response)).code).toBe('unauthenticated')
  })

  test('a token that fails its checksum is 401 invalid_token', async () => {
    const typo = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`
    const response = await tp.request('GET', '/api/v1/gadgets/gad_1', { token: typo })
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"')
    expect((await problem(response)).code).toBe('invalid_token')
  })

  test('a well-formed but unknown token is 401 invalid_token', async () => {
    const other = await createKernelTestPanel({ plugins: [gadgetsPlugin] })
    const foreign = await other.token()
    await other.panel.close()
    expect((await problem(await tp.request('GET', '/api/v1/gadgets/gad_1', { token: foreign }))).code).toBe(
      'invalid_token',
    )
  })

  test('a revoked token is 401 invalid_token, an expired one 401 token_expired', async () => {
    const revoked = await tp.token()
    const expired = await tp.token()
    const [revokedRow, expiredRow] = await kernel()
      .selectFrom('api_tokens')
      .select('id')
      .orderBy('id', 'desc')
      .limit(2)
      .execute()
    await kernel()
      .updateTable('api_tokens')
      .set({ revoked_at: new Date().toISOString() })
      .where('id', '=', revokedRow?.id ?? '')
      .execute()
    await kernel()
      .updateTable('api_tokens')
      .set({ expires_at: '2020-01-01T00:00:00.000Z' })
      .where('id', '=', expiredRow?.id ?? '')
      .execute()
    const a = await tp.request('GET', '/api/v1/gadgets/gad_1', { token: revoked })
    const b = await tp.request('GET', '/api/v1/gadgets/gad_1', { token: expired })
    // Whichever of the two rows each token got, one is revoked and the other expired.
    expect([(await problem(a)).code, (await problem(b)).code].sort()).toEqual([
      'invalid_token',
      'token_expired',
    ])
  })

  test('a missing scope is 403 insufficient_scope naming the scope', async () => {
    const narrow = await tp.token({ scopes: ['gadget:read'] })
    const response = await tp.request('POST', '/api/v1/gadgets', { token: narrow, body: { name: 'x' } })
    expect(response.status).toBe(403)
    expect(response.headers.get('www-authenticate')).toContain('scope="gadget:create"')
    const body = await problem(response)
    expect(body.code).toBe('insufficient_scope')
    expect(body.scope).toBe('gadget:create')
  })

  test('a customer-limited token is refused by staff areas with 403 staff_only', async () => {
    const limited = await tp.token({ customerId: 'cus_01JDQ3V6Y4T1ZK0M2N5P7R9S8W' })
    const response = await tp.request('GET', '/api/v1/gadget-admin', { token: limited })
    expect(response.status).toBe(403)
    expect((await problem(response)).code).toBe('staff_only')
    expect((await tp.request('GET', '/api/v1/gadget-admin', { token })).status).toBe(200)
  })

  test('a route needing a staff scope is a staff area even when it forgets to say so', async () => {
    // Found by review: staff areas depended on every route remembering `staff: true`.
    const limited = await tp.token({ customerId: 'cus_01JDQ3V6Y4T1ZK0M2N5P7R9S8W' })
    const response = await tp.request('GET', '/api/v1/gadget-admin/forgetful', { token: limited })
    expect(response.status).toBe(403)
    expect((await problem(response)).code).toBe('staff_only')
  })

  test('records when a token was last used', async () => {
    const fresh = await tp.token()
    await tp.request('GET', '/api/v1/gadgets/gad_1', { token: fresh })
    const row = await kernel()
      .selectFrom('api_tokens')
      .select('last_used_at')
      .orderBy('id', 'desc')
      .executeTakeFirst()
    expect(row?.last_used_at).toBeString()
  })
})

describe('request bodies', () => {
  test('every invalid field is one errors[] item with a dotted location and a field code', async () => {
    const response = await tp.request('POST', '/api/v1/gadgets', {
      token,
      body: {
        name: 'much too long a name',
        limits: { sizeMB: -1, extra: true },
        tags: ['a', 'b', 'c'],
        kind: 'huge',
        colour: 'red',
      },
    })
    expect(response.status).toBe(422)
    const body = await problem(response)
    expect(body.title).toBe('Unprocessable Content')
    expect(body.code).toBe('validation_failed')
    const byLocation = Object.fromEntries(
      (body.errors as { location: string; code: string }[]).map((e) => [e.location, e.code]),
    )
    expect(byLocation).toEqual({
      'body.name': 'too_long',
      'body.limits.sizeMB': 'out_of_range',
      'body.limits.extra': 'unknown_field',
      'body.tags': 'too_many_items',
      'body.kind': 'invalid_value',
      'body.colour': 'unknown_field',
    })
  })

  test('a missing field is required, a wrong type is invalid_type', async () => {
    const response = await tp.request('POST', '/api/v1/gadgets', {
      token,
      body: { limits: { sizeMB: 'ten' } },
    })
    const errors = (await problem(response)).errors as { location: string; code: string }[]
    expect(errors).toContainEqual(expect.objectContaining({ location: 'body.name', code: 'required' }))
    expect(errors).toContainEqual(
      expect.objectContaining({ location: 'body.limits.sizeMB', code: 'invalid_type' }),
    )
  })

  test('no body at all is 422 required at body', async () => {
    const errors = (await problem(await tp.request('POST', '/api/v1/gadgets', { token }))).errors
    expect(errors).toEqual([{ location: 'body', message: 'is required', code: 'required' }])
  })

  test('an action whose fields are all optional takes no body at all, as it takes {}', async () => {
    // Found by outside clients: POST /database-users/{id}/rotate-password without a body was 422 "needs a JSON body".
    const bare = await tp.request('POST', '/api/v1/gadgets/gad_1/polish', { token })
    expect(bare.status).toBe(200)
    expect(await bare.json()).toEqual({ id: 'gad_1', shine: 1 })
    const empty = await tp.request('POST', '/api/v1/gadgets/gad_1/polish', { token, body: {} })
    expect(await empty.json()).toEqual({ id: 'gad_1', shine: 1 })
    const chosen = await tp.request('POST', '/api/v1/gadgets/gad_1/polish', { token, body: { shine: 3 } })
    expect(await chosen.json()).toEqual({ id: 'gad_1', shine: 3 })
    const wrong = await tp.request('POST', '/api/v1/gadgets/gad_1/polish', { token, body: { shine: 9 } })
    expect(wrong.status).toBe(422)
    // The document says so: the body is optional there, required where a field is.
    const document = (await (await tp.request('GET', '/api/docs')).json()) as {
      paths: Record<string, Record<string, { requestBody: { required: boolean } }>>
    }
    expect(document.paths['/api/v1/gadgets/{id}/polish']?.post?.requestBody.required).toBe(false)
    expect(document.paths['/api/v1/gadgets']?.post?.requestBody.required).toBe(true)
  })

  test('malformed JSON is 400 malformed_json', async () => {
    const response = await tp.request('POST', '/api/v1/gadgets', { token, body: '{"name":' })
    expect(response.status).toBe(400)
    expect((await problem(response)).code).toBe('malformed_json')
  })

  test('a body that is not JSON is 415 unsupported_media_type', async () => {
    const response = await tp.request('POST', '/api/v1/gadgets', {
      token,
      body: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(response.status).toBe(415)
    expect((await problem(response)).code).toBe('unsupported_media_type')
  })

  test('a body over the limit is 413 body_too_large, declared or streamed', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(600) })
    const declared = await tp.request('POST', '/api/v1/gadgets', { token, body: big })
    expect(declared.status).toBe(413)
    expect(await problem(declared)).toMatchObject({ code: 'body_too_large', limitBytes: 512 })
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big))
        controller.close()
      },
    })
    const streamed = await tp.panel.handle(
      new Request('http://localhost/api/v1/gadgets', {
        method: 'POST',
        body: stream,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      }),
    )
    expect(streamed.status).toBe(413)
  })
})

describe('query strings and paths', () => {
  test('query values are converted and defaulted', async () => {
    expect(await (await tp.request('GET', '/api/v1/gadgets/gad_1?limit=5', { token })).json()).toEqual({
      id: 'gad_1',
      limit: 5,
    })
    expect(await (await tp.request('GET', '/api/v1/gadgets/gad_1', { token })).json()).toEqual({
      id: 'gad_1',
      limit: 20,
    })
  })

  test('an out-of-range or unknown query parameter is 422 at query.<name>', async () => {
    const errors = (
      await problem(await tp.request('GET', '/api/v1/gadgets/gad_1?limit=500&colour=red', { token }))
    ).errors
    expect(errors).toContainEqual({
      location: 'query.limit',
      code: 'out_of_range',
      message: 'must be at most 100',
    })
    expect(errors).toContainEqual({
      location: 'query.colour',
      code: 'unknown_field',
      message: 'is not a known field',
    })
    expect(errors).toHaveLength(2)
  })

  test('a whole-number parameter takes digits only: 1.5, 1e1 and 0x10 are 422 invalid_type', async () => {
    for (const limit of ['1.5', '1e1', '0x10', ' 5']) {
      const errors = (
        await problem(
          await tp.request('GET', `/api/v1/gadgets/gad_1?limit=${encodeURIComponent(limit)}`, { token }),
        )
      ).errors
      expect(errors).toEqual([expect.objectContaining({ location: 'query.limit', code: 'invalid_type' })])
    }
  })

  test('a path parameter that cannot be an id is 404 not_found', async () => {
    const response = await tp.request('GET', '/api/v1/gadgets/nonsense', { token })
    expect(response.status).toBe(404)
    expect((await problem(response)).code).toBe('not_found')
  })

  test('an unknown path is 404 route_not_found, a wrong method 405 with Allow', async () => {
    expect((await problem(await tp.request('GET', '/api/v1/nowhere', { token }))).code).toBe(
      'route_not_found',
    )
    const response = await tp.request('DELETE', '/api/v1/gadgets', { token })
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('POST')
    expect((await problem(response)).code).toBe('method_not_allowed')
  })
})

describe('state changes', () => {
  test('a created resource comes with its Location, an audit entry and an outbox event', async () => {
    const response = await tp.request('POST', '/api/v1/gadgets', { token, body: { name: 'ok' } })
    expect(response.status).toBe(201)
    const { id } = (await response.json()) as { id: string }
    expect(response.headers.get('location')).toBe(`/api/v1/gadgets/${id}`)
    const audit = await kernel()
      .selectFrom('audit_entries')
      .selectAll()
      .where('subject_id', '=', id)
      .executeTakeFirstOrThrow()
    expect(audit).toMatchObject({ action: 'gadget.create', request_id: response.headers.get('x-request-id') })
    expect(audit.actor_token_id).toStartWith('tok_')
    const event = await kernel()
      .selectFrom('event_outbox')
      .selectAll()
      .where('kind', '=', 'gadget.created')
      .executeTakeFirstOrThrow()
    expect(JSON.parse(event.payload)).toEqual({ id })
  })

  test('a failure after the writes is a 500 that discloses nothing and rolls everything back', async () => {
    const before = await kernel()
      .selectFrom('audit_entries')
      .select(({ fn }) => fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    const response = await tp.request('POST', '/api/v1/gadgets', { token, body: { name: 'explode' } })
    expect(response.status).toBe(500)
    const body = await problem(response)
    expect(body.code).toBe('internal_error')
    expect(JSON.stringify(body)).not.toContain('secret internal detail')
    expect(await kernel().selectFrom('gadgets').selectAll().where('name', '=', 'explode').execute()).toEqual(
      [],
    )
    const after = await kernel()
      .selectFrom('audit_entries')
      .select(({ fn }) => fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    expect(after.n).toBe(before.n)
  })
})
