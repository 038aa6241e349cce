// What a route declares is what a client gets: lists, id parameters, recorded changes, formats, trimmed text,
// conditional requests, secrets kept out of caches, and the contract checks that hold routes to their declaration.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Type as t } from '@sinclair/typebox'
import { newId, nowIso } from '../ids/ids.ts'
import { nonBlankText } from '../problem/field-checks.ts'
import { defineFormat } from '../problem/formats.ts'
import { Problem } from '../problem/problem.ts'
import { defineProblems } from '../problem/problem-code.ts'
import type { Db } from '../store/store.ts'
import { findVisible } from '../tenancy/find-visible.ts'
import { createKernelTestPanel, type TestPanel } from '../testing/create-test-panel.ts'
import { expectFieldProblem, expectProblem } from '../testing/problems.ts'
import { customerA, customerB, fixturePlugin, twoTenants } from '../testing/tenancy-fixture.ts'
import { resourceEvents, resourceRoutes } from './resource-routes.ts'
import { defineRoute } from './route.ts'

const Widget = t.Object(
  { id: t.String(), customerId: t.String(), name: t.String(), colour: t.String(), updatedAt: t.String() },
  { $id: 'Widget' },
)
type Widget = typeof Widget.static
const widgets = (db: Db) => db.withTables<{ widgets: Widget }>()

const widgetProblems = defineProblems({
  invalid_colour: { status: 422, detail: 'Not a #rrggbb colour.', description: 'A colour is `#rrggbb`.' },
})
const Colour = defineFormat({
  name: 'test-colour',
  check: (value) => /^#[0-9a-f]{6}$/.test(value),
  problem: widgetProblems.invalid_colour,
})
const NewWidget = t.Object({
  customerId: t.String({ maxLength: 64 }),
  name: nonBlankText({ maxLength: 20 }),
  colour: Colour({ maxLength: 7 }),
})

const plugin = fixturePlugin({
  name: 'widgets',
  description: 'Widgets of customers, declared the ways plugins declare resources.',
  scopes: ['gadget:read', 'gadget:create'],
  tenants: twoTenants,
  events: resourceEvents('widget', Widget, 'A widget'),
  problems: widgetProblems,
  migrations: [
    {
      id: '0001_widgets',
      async up(db) {
        let table = db.schema.createTable('widgets').addColumn('id', 'text', (c) => c.primaryKey())
        for (const column of ['customerId', 'name', 'colour', 'updatedAt'])
          table = table.addColumn(column, 'text', (c) => c.notNull())
        await table.execute()
      },
    },
  ],
  routes: (context) => [
    ...resourceRoutes({
      item: Widget,
      name: 'widget',
      path: '/widgets',
      key: { widgetId: 'wid' },
      scopes: { read: 'gadget:read', manage: 'gadget:create' },
      list: {
        query: t.Object({ colour: t.Optional(t.String({ maxLength: 7 })) }),
        handler({ query, view }) {
          const all = widgets(context.db).selectFrom('widgets').selectAll()
          const visible = all.where(
            'customerId',
            'in',
            view.kind === 'customers' ? view.customerIds : [customerA, customerB],
          )
          return query.colour === undefined ? visible : visible.where('colour', '=', query.colour)
        },
      },
      read: ({ params, view }) =>
        findVisible(widgets(context.db), 'widgets', view, params.widgetId, { customerColumn: 'customerId' }),
      create: {
        body: NewWidget,
        async handler({ trx, body }) {
          const row = { ...body, id: newId('wid'), updatedAt: nowIso() }
          await widgets(trx).insertInto('widgets').values(row).execute()
          return row
        },
      },
      update: {
        body: t.Partial(t.Omit(NewWidget, ['customerId'])),
        async handler({ trx, params, body, view }) {
          const row = await findVisible(widgets(trx), 'widgets', view, params.widgetId, {
            customerColumn: 'customerId',
          })
          const changed = { ...row, ...body, updatedAt: nowIso() }
          await widgets(trx).updateTable('widgets').set(changed).where('id', '=', row.id).execute()
          return changed
        },
      },
      async remove({ trx, params, view }) {
        const row = await findVisible(widgets(trx), 'widgets', view, params.widgetId, {
          customerColumn: 'customerId',
        })
        await widgets(trx).deleteFrom('widgets').where('id', '=', row.id).execute()
        return row
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/widgets/:widgetId/secret',
      operationId: 'revealWidgetSecret',
      scope: 'gadget:read',
      params: { widgetId: 'wid' },
      showsSecret: true,
      audited: false,
      responses: { 200: t.Object({ secret: t.String() }, { $id: 'WidgetSecret' }) },
      handler: () => ({ secret: 'shown once' }),
    }),
    defineRoute({
      method: 'POST',
      path: '/widgets/:widgetId/forget-audit',
      operationId: 'forgetWidgetAudit',
      scope: 'gadget:create',
      params: { widgetId: 'wid' },
      responses: { 204: { description: 'Renamed without an audit entry.' } },
      async handler({ params }) {
        await widgets(context.db)
          .updateTable('widgets')
          .set({ name: 'sneaky' })
          .where('id', '=', params.widgetId)
          .execute()
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/widgets/:widgetId/undeclared',
      operationId: 'refuseWidgetUndeclared',
      scope: 'gadget:read',
      params: { widgetId: 'wid' },
      responses: { 200: Widget },
      handler: () => {
        throw new Problem(widgetProblems.invalid_colour)
      },
    }),
  ],
})

let tp: TestPanel
let token: string

async function create(body: Record<string, unknown>, as = token): Promise<Response> {
  return tp.request('POST', '/api/v1/widgets', {
    token: as,
    body: { customerId: customerA, colour: '#112233', ...body },
  })
}

beforeAll(async () => {
  tp = await createKernelTestPanel({ plugins: [plugin] })
  token = await tp.token()
})
afterAll(() => tp.panel.close())

describe('a recorded change', () => {
  test('answers 201 with Location, and writes its audit entry and event in its transaction', async () => {
    const response = await create({ name: '  Sprocket  ' })
    expect(response.status).toBe(201)
    const widget = (await response.json()) as Widget
    expect(response.headers.get('location')).toBe(`/api/v1/widgets/${widget.id}`)
    expect(widget).toMatchObject({ customerId: customerA, name: 'Sprocket' })
    const audit = (await (
      await tp.request('GET', `/api/v1/audit?subject=${widget.id}`, { token })
    ).json()) as {
      items: { action: string; customerId: string; subject: { type: string } }[]
    }
    expect(audit.items).toEqual([
      expect.objectContaining({
        action: 'widget.create',
        customerId: customerA,
        subject: { type: 'widget', id: widget.id },
      }),
    ])
    const events = await tp.panel.store.db
      .withTables<{ event_outbox: { id: string; kind: string; payload: string } }>()
      .selectFrom('event_outbox')
      .selectAll()
      .where('kind', '=', 'widget.created')
      .execute()
    expect(events.map((event) => JSON.parse(event.payload))).toContainEqual(widget)
  })

  test('DELETE answers 204, and the item is gone', async () => {
    const widget = (await (await create({ name: 'Doomed' })).json()) as Widget
    expect((await tp.request('DELETE', `/api/v1/widgets/${widget.id}`, { token })).status).toBe(204)
    await expectProblem(await tp.request('GET', `/api/v1/widgets/${widget.id}`, { token }), 404, 'not_found')
  })
})

describe('declared fields', () => {
  test('blank text is too_short, a declared format keeps its own code, and all of them come in one 422', async () => {
    await expectFieldProblem(
      await create({ name: 'ok', colour: 'red' }),
      422,
      'invalid_colour',
      'body.colour',
    )
    const both = await expectProblem(await create({ name: '   ', colour: 'red' }), 422, 'validation_failed')
    expect(both.errors).toEqual([
      expect.objectContaining({ location: 'body.name', code: 'too_short' }),
      expect.objectContaining({ location: 'body.colour', code: 'invalid_colour' }),
    ])
  })

  test('NUL and lone surrogates are refused at their field, and nothing is stored', async () => {
    const before = (await (await tp.request('GET', '/api/v1/widgets?limit=100', { token })).json()) as {
      items: []
    }
    const body = `{"customerId":"${customerA}","colour":"#112233","name":"Sec\\ud800x"}`
    const refused = await expectProblem(
      await tp.request('POST', '/api/v1/widgets', {
        token,
        body,
        headers: { 'content-type': 'application/json' },
      }),
      422,
      'validation_failed',
    )
    expect(refused.errors).toEqual([
      expect.objectContaining({ location: 'body.name', code: 'invalid_characters' }),
    ])
    await expectProblem(await create({ name: 'a\u0000b' }), 422, 'validation_failed')
    await expectProblem(
      await tp.request('GET', '/api/v1/widgets?colour=%00', { token }),
      422,
      'validation_failed',
    )
    const after = (await (await tp.request('GET', '/api/v1/widgets?limit=100', { token })).json()) as {
      items: []
    }
    expect(after.items.length).toBe(before.items.length)
  })

  test('an id of the wrong prefix is 404 before any handler runs', async () => {
    await expectProblem(
      await tp.request('GET', '/api/v1/widgets/site_01JDQ3V6Y4T1ZK0M2N5P7R9S8W', { token }),
      404,
      'not_found',
    )
  })
})

describe('a declared list', () => {
  test('pages with cursor and limit, keyed by id, bound to its filters', async () => {
    for (const name of ['p1', 'p2', 'p3']) await create({ name, colour: '#abcdef' })
    const first = (await (
      await tp.request('GET', '/api/v1/widgets?colour=%23abcdef&limit=2', { token })
    ).json()) as {
      items: Widget[]
      nextCursor: string
    }
    expect(first.items.map((item) => item.name)).toEqual(['p1', 'p2'])
    const cursor = encodeURIComponent(first.nextCursor)
    const second = (await (
      await tp.request('GET', `/api/v1/widgets?colour=%23abcdef&limit=2&cursor=${cursor}`, { token })
    ).json()) as { items: Widget[]; nextCursor: null }
    expect(second).toEqual({ items: [expect.objectContaining({ name: 'p3' })], nextCursor: null })
    await expectProblem(
      await tp.request('GET', `/api/v1/widgets?colour=%23000000&cursor=${cursor}`, { token }),
      400,
      'invalid_cursor',
    )
  })

  test('is documented as a page of its item, with cursor and limit, under conventional names', () => {
    const document = tp.panel.document as {
      paths: Record<string, Record<string, { operationId: string; summary: string }>>
    }
    expect(document.paths['/api/v1/widgets']?.get).toMatchObject({
      operationId: 'listWidgets',
      summary: 'List widgets',
    })
    expect(document.paths['/api/v1/widgets/{widgetId}']?.patch?.operationId).toBe('updateWidget')
  })
})

describe('conditional requests', () => {
  test('a read carries an ETag; If-None-Match answers 304; If-Match stops a change made meanwhile with 412', async () => {
    const widget = (await (await create({ name: 'Tagged' })).json()) as Widget
    const path = `/api/v1/widgets/${widget.id}`
    const read = await tp.request('GET', path, { token })
    const etag = read.headers.get('etag') ?? ''
    expect(etag).toMatch(/^"[0-9a-z]+"$/)
    const unchanged = await tp.request('GET', path, { token, headers: { 'if-none-match': etag } })
    expect(unchanged.status).toBe(304)
    expect(await unchanged.text()).toBe('')

    const changed = await tp.request('PATCH', path, {
      token,
      body: { name: 'Renamed' },
      headers: { 'if-match': etag },
    })
    expect(changed.status).toBe(200)
    const stale = await tp.request('PATCH', path, {
      token,
      body: { name: 'Lost' },
      headers: { 'if-match': etag },
    })
    await expectProblem(stale, 412, 'precondition_failed')
    await expectProblem(
      await tp.request('DELETE', path, { token, headers: { 'if-match': '"bogus"' } }),
      412,
      'precondition_failed',
    )
    expect(((await (await tp.request('GET', path, { token })).json()) as Widget).name).toBe('Renamed')
  })
})

describe('answers', () => {
  test('every answer says nosniff; one that shows a secret is not to be stored', async () => {
    const widget = (await (await create({ name: 'Secretive' })).json()) as Widget
    const secret = await tp.request('POST', `/api/v1/widgets/${widget.id}/secret`, { token })
    expect(secret.headers.get('cache-control')).toBe('no-store')
    expect(secret.headers.get('x-content-type-options')).toBe('nosniff')
    for (const path of ['/api/v1/widgets', '/api/v1/nothing', '/api/docs', '/healthz']) {
      const response = await tp.request('GET', path, { token })
      expect(response.headers.get('x-content-type-options')).toBe('nosniff')
      expect(response.headers.get('cache-control')).toBeNull()
    }
  })

  test('a well-formed X-Request-Id is kept as the request id; anything else is replaced', async () => {
    const kept = await tp.request('GET', '/api/v1/widgets', {
      token,
      headers: { 'x-request-id': 'lb-7f3a:42' },
    })
    expect(kept.headers.get('x-request-id')).toBe('lb-7f3a:42')
    const replaced = await tp.request('GET', '/api/v1/widgets', {
      token,
      headers: { 'x-request-id': 'no spaces <b>' },
    })
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_/)
  })

  test('a lost client at / or the API base is pointed at the document', async () => {
    for (const path of ['/', '/api/v1']) {
      const response = await tp.request('GET', path)
      expect(response.status).toBe(200)
      expect(await response.json()).toMatchObject({ api: '/api/v1', docs: '/api/docs' })
    }
  })
})

describe('test panels hold routes to their declaration', () => {
  test('a change that wrote no audit entry fails, naming the route', async () => {
    const widget = (await (await create({ name: 'Watched' })).json()) as Widget
    const response = await tp.request('POST', `/api/v1/widgets/${widget.id}/forget-audit`, { token })
    await expectProblem(response, 500, 'internal_error')
  })

  test('a refusal the route does not list fails', async () => {
    const widget = (await (await create({ name: 'Strict' })).json()) as Widget
    await expectProblem(
      await tp.request('GET', `/api/v1/widgets/${widget.id}/undeclared`, { token }),
      500,
      'internal_error',
    )
  })
})

describe('start-up refuses', () => {
  const route = (path: string, extra: Record<string, unknown> = {}) =>
    defineRoute({
      method: 'GET',
      path,
      operationId: `op${path.replace(/[^a-z]/gi, '')}`,
      scope: 'gadget:read',
      responses: { 200: { description: 'x' } },
      handler: () => ({}),
      ...extra,
    } as Parameters<typeof defineRoute>[0])
  const build = (routes: ReturnType<typeof route>[], name = 'clash') =>
    createKernelTestPanel({
      plugins: [fixturePlugin({ name, description: 'x', scopes: ['gadget:read'], routes: () => routes })],
    })

  test('two routes naming a parameter differently at one place, naming both (the router would 500 at every request)', async () => {
    await expect(build([route('/things/:id'), route('/things/:thingId/parts')])).rejects.toThrow(
      /GET \/things\/:thingId\/parts of "clash" names the parameter ":thingId" where GET \/things\/:id of "clash" names ":id"/,
    )
  })

  test('a POST answering 201 that does not say whether it is idempotent', async () => {
    const post = route('/things', { method: 'POST', responses: { 201: { description: 'x' } } })
    await expect(build([post])).rejects.toThrow(/answers 201 but does not say whether it is idempotent/)
  })

  test('a list that declares cursor or limit itself', async () => {
    const list = route('/things', {
      list: { item: Widget },
      responses: undefined,
      query: t.Object({ limit: t.Optional(t.Integer()) }),
    })
    await expect(build([list])).rejects.toThrow(/declares cursor or limit/)
  })
})
