// Query strings read as TypeBox's conversion and defaults would read them, without TypeBox walking flat schemas.

import { describe, expect, test } from 'bun:test'
import { type TObject, Type as t } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import fc from 'fast-check'
import { pageQuery } from '../pagination/paginate.ts'
import { createKernelTestPanel } from '../testing/create-test-panel.ts'
import { queryReader } from './query-string.ts'

/** A list's query: page parameters, text, a union of literals. */
const listQuery = t.Object({
  ...pageQuery,
  customerId: t.Optional(t.String({ maxLength: 64 })),
  status: t.Optional(t.Union([t.Literal('active'), t.Literal('suspended')])),
})

/** The reading every query had before: TypeBox's conversion and defaults over the parsed URL. */
function throughTypeBox(schema: TObject, href: string): Record<string, unknown> {
  const url = new URL(href)
  const query: Record<string, unknown> = {}
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key)
    const property = schema.properties[key] as { type?: unknown } | undefined
    const value = property?.type === 'array' || values.length > 1 ? values : values[0]
    query[key] =
      property?.type === 'integer' && typeof value === 'string' && !/^-?[0-9]{1,15}$/.test(value)
        ? [value]
        : value
  }
  return Value.Default(schema, Value.Convert(schema, query)) as Record<string, unknown>
}

const keys = fc.constantFrom('cursor', 'limit', 'customerId', 'status', 'other', 'li mit')
const values = fc.oneof(
  fc.constantFrom(
    '20',
    '-3',
    '007',
    '1.5',
    '0x10',
    '',
    'true',
    'active',
    'suspended',
    '1e3',
    '9999999999999999',
  ),
  fc.string({ maxLength: 12 }),
)

describe('queryReader', () => {
  test('reads any query of a flat schema as TypeBox’s conversion and defaults would', () => {
    const read = queryReader(listQuery)
    fc.assert(
      fc.property(fc.array(fc.tuple(keys, values), { maxLength: 5 }), fc.boolean(), (pairs, fragment) => {
        const search = new URLSearchParams(pairs).toString()
        const href = `http://localhost/api/v1/gadgets${search ? `?${search}` : ''}${fragment ? '#part' : ''}`
        expect(read(new Request(href).url)).toEqual(throughTypeBox(listQuery, href))
      }),
      { numRuns: 500 },
    )
  })

  test('hands schemas it cannot read flat to TypeBox: numbers and booleans are converted there', () => {
    const schema = t.Object({
      ratio: t.Optional(t.Number()),
      on: t.Optional(t.Boolean()),
      limit: t.Optional(t.Integer({ default: 5 })),
    })
    const read = queryReader(schema)
    expect(read('http://localhost/x?ratio=1.5&on=true')).toEqual({ ratio: 1.5, on: true, limit: 5 })
    expect(read('http://localhost/x?limit=0x10')).toEqual({ limit: ['0x10'] })
  })

  test('gives the defaults, a fresh object each time, to a request without a query', () => {
    const read = queryReader(listQuery)
    const first = read('http://localhost/api/v1/gadgets')
    first.limit = 99
    expect(read('http://localhost/api/v1/gadgets?')).toEqual({ limit: 20 })
  })
})

test('a __proto__ key in a query is refused as an unknown parameter, not swallowed', async () => {
  const tp = await createKernelTestPanel({ plugins: [] })
  const token = await tp.token()
  const response = await tp.request('GET', '/api/v1/api-tokens?__proto__=1', { token })
  expect(response.status).toBe(422)
  expect(JSON.stringify(await response.json())).toContain('query.__proto__')
  await tp.panel.close()
})
