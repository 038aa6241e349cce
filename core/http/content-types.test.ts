// Answers in other media types than JSON, black-box: text and bytes sent as the handler gave them, tagged like JSON
// (ETag, 304 for If-None-Match, If-Match on a change of the same path), and documented under their media type.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Type as t } from '@sinclair/typebox'
import { definePlugin } from '../plugin/define-plugin.ts'
import { defineRoute, Reply } from '../plugin/route.ts'
import { createKernelTestPanel, type TestPanel } from '../testing/create-test-panel.ts'

type LabelTables = { labels: { id: string; text: string } }

const Label = t.Object({ id: t.String(), text: t.String() }, { $id: 'Label' })

/** Labels, shown as JSON, as plain text, as a one-pixel image, and changed as JSON. */
const labelsPlugin = definePlugin({
  name: 'labels',
  version: '1.0.0',
  description: 'Test labels.',
  scopes: [{ name: 'label:manage', description: 'Labels' }],
  migrations: [
    {
      id: '0001_labels',
      async up(db) {
        await db.schema
          .createTable('labels')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('text', 'text', (c) => c.notNull())
          .execute()
        await db
          .withTables<LabelTables>()
          .insertInto('labels')
          .values({ id: 'lbl_1', text: 'first' })
          .execute()
      },
    },
  ],
  routes: (context) => {
    const labels = () => context.db.withTables<LabelTables>()
    const labelOf = async (id: string) =>
      (await labels().selectFrom('labels').selectAll().where('id', '=', id).executeTakeFirst()) ?? {
        id,
        text: '',
      }
    return [
      defineRoute({
        method: 'GET',
        path: '/labels/:id',
        operationId: 'getLabelText',
        scope: 'label:manage',
        params: t.Object({ id: t.String() }),
        responses: {
          200: {
            description: 'The label as a line of text.',
            contentType: 'text/plain; charset=utf-8',
            schema: t.String({ description: 'The label, then a new line.' }),
          },
        },
        handler: async ({ params }) => `${(await labelOf(params.id)).text}\n`,
      }),
      defineRoute({
        method: 'PUT',
        path: '/labels/:id',
        operationId: 'putLabel',
        scope: 'label:manage',
        params: t.Object({ id: t.String() }),
        body: t.Object({ text: t.String({ maxLength: 100 }) }),
        responses: { 200: Label },
        change: { action: 'label.update' },
        async handler({ trx, params, body }) {
          await trx
            .withTables<LabelTables>()
            .updateTable('labels')
            .set(body)
            .where('id', '=', params.id)
            .execute()
          return { id: params.id, text: body.text }
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/labels/:id/pixel',
        operationId: 'getLabelPixel',
        scope: 'label:manage',
        params: t.Object({ id: t.String() }),
        responses: {
          200: { description: 'One byte per character.', contentType: 'application/octet-stream' },
        },
        handler: async ({ params }) =>
          new Reply(200, new TextEncoder().encode((await labelOf(params.id)).text), {
            'Content-Type': 'image/x-test',
          }),
      }),
      defineRoute({
        method: 'GET',
        path: '/labels/:id/broken',
        operationId: 'getLabelBroken',
        scope: 'label:manage',
        params: t.Object({ id: t.String() }),
        responses: {
          200: { description: 'Declared as text, answered as an object.', contentType: 'text/csv' },
        },
        handler: () => ({ not: 'text' }),
      }),
    ]
  },
})

let tp: TestPanel
let token: string

beforeAll(async () => {
  tp = await createKernelTestPanel({ plugins: [labelsPlugin] })
  token = await tp.token()
})
afterAll(() => tp.panel.close())

describe('answers in another media type', () => {
  test('text is sent as it is under the declared type, with an ETag; If-None-Match answers 304', async () => {
    const first = await tp.request('GET', '/api/v1/labels/lbl_1', { token })
    expect(first.status).toBe(200)
    expect(first.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(await first.text()).toBe('first\n')
    const etag = first.headers.get('etag') ?? ''
    expect(etag).toMatch(/^"[0-9a-z]+"$/)
    const again = await tp.request('GET', '/api/v1/labels/lbl_1', {
      token,
      headers: { 'if-none-match': etag },
    })
    expect(again.status).toBe(304)
    expect(again.headers.get('etag')).toBe(etag)
    expect(await again.text()).toBe('')
  })

  test('a change with If-Match compares the text representation: stale is 412, current goes ahead', async () => {
    const read = await tp.request('GET', '/api/v1/labels/lbl_1', { token })
    const etag = read.headers.get('etag') ?? ''
    const stale = await tp.request('PUT', '/api/v1/labels/lbl_1', {
      token,
      body: { text: 'second' },
      headers: { 'if-match': '"stale"' },
    })
    expect(stale.status).toBe(412)
    expect(stale.headers.get('etag')).toBe(etag)
    const current = await tp.request('PUT', '/api/v1/labels/lbl_1', {
      token,
      body: { text: 'second' },
      headers: { 'if-match': etag },
    })
    expect(current.status).toBe(200)
    const after = await tp.request('GET', '/api/v1/labels/lbl_1', {
      token,
      headers: { 'if-none-match': etag },
    })
    expect(after.status).toBe(200)
    expect(await after.text()).toBe('second\n')
  })

  test('bytes under a type the answer names are sent as they are, and tagged', async () => {
    const response = await tp.request('GET', '/api/v1/labels/lbl_1/pixel', { token })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('image/x-test')
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(new TextEncoder().encode('second'))
    const etag = response.headers.get('etag') ?? ''
    const again = await tp.request('GET', '/api/v1/labels/lbl_1/pixel', {
      token,
      headers: { 'if-none-match': etag },
    })
    expect(again.status).toBe(304)
  })

  test('a handler answering an object where its route declared text fails the request (500), naming nothing', async () => {
    const response = await tp.request('GET', '/api/v1/labels/lbl_1/broken', { token })
    expect(response.status).toBe(500)
    expect(((await response.json()) as { code: string }).code).toBe('internal_error')
  })

  test('the document shows the body under its media type, with ETag, If-None-Match and 304', () => {
    const paths = tp.panel.document.paths as Record<string, Record<string, Record<string, unknown>>>
    const read = paths['/api/v1/labels/{id}']?.get as {
      parameters: { name: string }[]
      responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }>
    }
    expect(read.responses['200']?.content).toEqual({
      'text/plain; charset=utf-8': { schema: { type: 'string', description: 'The label, then a new line.' } },
    })
    expect(read.responses['200']?.headers).toHaveProperty('ETag')
    expect(read.responses).toHaveProperty('304')
    expect(read.parameters.map((parameter) => parameter.name)).toContain('If-None-Match')
  })

  test('a stream is documented without ETag or 304: it is never tagged', () => {
    const paths = tp.panel.document.paths as Record<string, Record<string, Record<string, unknown>>>
    const events = paths['/api/v1/jobs/{id}/events']?.get as {
      parameters: { name: string }[]
      responses: Record<string, { headers?: Record<string, unknown> }>
    }
    expect(events.responses['200']?.headers).not.toHaveProperty('ETag')
    expect(events.responses).not.toHaveProperty('304')
    expect(events.parameters.map((parameter) => parameter.name)).not.toContain('If-None-Match')
  })
})
