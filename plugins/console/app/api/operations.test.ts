// What the kit's declared pages read of an operation in the served document: the fields of its body (their kinds,
// labels, hints and options) and the scope it needs, on the standard panel's own document and on schemas it has
// no example of.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestPanel, type TestPanel } from '../../../../hosts/testing/index.ts'
import { bodyFields, type OpenApiDocument, operationScope, takesIdempotencyKey } from './operations.ts'

let tp: TestPanel
let served: OpenApiDocument
beforeAll(async () => {
  tp = await createTestPanel()
  served = (await (
    await tp.panel.handle(new Request('http://panel.test/api/docs'))
  ).json()) as OpenApiDocument
})
afterAll(() => tp.panel.close())

describe('on the served document', () => {
  test('a body named by reference gives the customer select, an enum’s select, and texts hinted by descriptions', () => {
    expect(bodyFields(served, 'post', '/api/v1/databases')).toEqual([
      { name: 'customerId', label: 'Customer', hint: 'The owning customer, `cus_…`.', type: 'customer' },
      {
        name: 'engine',
        label: 'Engine',
        hint: '`mariadb` or `postgresql`.',
        type: 'text',
        options: ['mariadb', 'postgresql'],
      },
      expect.objectContaining({ name: 'name', label: 'Name', type: 'text' }),
      expect.objectContaining({ name: 'siteId', label: 'Site id', type: 'text' }),
    ])
  })

  test('an optional enum may send nothing, an optional boolean may too, and a list has no input', () => {
    const node = bodyFields(served, 'post', '/api/v1/nodes').find((field) => field.name === 'status')
    expect(node?.options).toEqual(['', 'active', 'draining', 'disabled'])
    const webhook = bodyFields(served, 'post', '/api/v1/webhooks')
    expect(webhook.map((field) => [field.name, field.type, field.initial])).toEqual([
      ['url', 'text', undefined],
      // Optional, its default only in words: Default, Yes or No, so that leaving it alone sends nothing.
      ['enabled', 'yes-no', undefined],
      ['brandId', 'text', undefined],
    ])
  })

  test('the scope is the operation’s security requirement, and none for a public operation', () => {
    expect(operationScope(served, 'post', '/api/v1/brands')).toBe('brand:create')
    expect(operationScope(served, 'delete', '/api/v1/brands/{id}')).toBe('brand:manage')
    expect(operationScope(served, 'post', '/api/v1/auth/login')).toBeNull()
  })

  test('a creating POST takes an Idempotency-Key, a sign-in does not', () => {
    expect(takesIdempotencyKey(served, 'post', '/api/v1/databases')).toBe(true)
    expect(takesIdempotencyKey(served, 'post', '/api/v1/auth/login')).toBe(false)
  })

  test('an operation the document lacks is an error naming it, not an empty form', () => {
    expect(() => bodyFields(served, 'post', '/api/v1/nothing-here')).toThrow(
      'The API document has no POST /api/v1/nothing-here',
    )
  })
})

describe('on schemas the standard plugins do not show', () => {
  const document: OpenApiDocument = {
    paths: {
      '/api/v1/things': {
        post: {
          requestBody: {
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['kind'],
                  properties: {
                    kind: { anyOf: [{ const: 'small' }, { const: 'large' }] },
                    sizeMB: { type: 'number', title: 'Size (MB)' },
                    note: { type: ['string', 'null'] },
                    public: { type: 'boolean', default: true },
                    limits: { type: 'object', properties: {} },
                  },
                },
              },
            },
          },
        },
      },
    },
  }

  test('a union of constants is a select, a title the label, a nullable text a text, a default the start, an object no input', () => {
    expect(bodyFields(document, 'post', '/api/v1/things')).toEqual([
      { name: 'kind', label: 'Kind', hint: undefined, type: 'text', options: ['small', 'large'] },
      { name: 'sizeMB', label: 'Size (MB)', hint: undefined, type: 'number' },
      { name: 'note', label: 'Note', hint: undefined, type: 'text' },
      { name: 'public', label: 'Public', hint: undefined, type: 'checkbox', initial: true },
    ])
    expect(operationScope(document, 'post', '/api/v1/things')).toBeNull()
  })
})
