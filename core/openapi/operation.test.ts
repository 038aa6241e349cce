// The operation generator on routes the standard plugins do not have: nested named schemas, path and query params.

import { describe, expect, test } from 'bun:test'
import { type TObject, Type as t } from '@sinclair/typebox'
import { defineRoute, type RouteDefinition } from '../plugin/route.ts'
import { operationOf, responseHeaders, schemaRef } from './operation.ts'

const Limits = t.Object({ sizeMB: t.Integer({ minimum: 0 }) }, { $id: 'Limits' })
const Plan = t.Object({ name: t.String(), limits: Limits }, { $id: 'Plan' })

function route(overrides: {
  path?: string
  params?: TObject
  query?: TObject
  body?: TObject
}): RouteDefinition {
  return defineRoute({
    method: 'GET',
    path: '/plans',
    operationId: 'listPlans',
    summary: 'List plans',
    scope: 'plan:read',
    responses: { 200: { description: 'The plans.', schema: t.Array(Plan) } },
    handler: () => [],
    ...overrides,
  } as Parameters<typeof defineRoute>[0])
}

describe('schemaRef', () => {
  test('moves named schemas nested at any depth to components and references them', () => {
    const components: Record<string, unknown> = {}
    expect(schemaRef(t.Array(Plan), components)).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/Plan' },
    })
    expect(components.Plan).toMatchObject({ properties: { limits: { $ref: '#/components/schemas/Limits' } } })
    expect(components.Limits).toMatchObject({ type: 'object', required: ['sizeMB'] })
    expect(JSON.stringify(components)).not.toContain('$id')
  })

  test('finds a named schema under a property called like a data keyword', () => {
    const components: Record<string, unknown> = {}
    expect(schemaRef(t.Object({ default: Limits, enum: t.Literal('a') }), components)).toMatchObject({
      properties: { default: { $ref: '#/components/schemas/Limits' }, enum: { const: 'a' } },
    })
    expect(components).toHaveProperty('Limits')
  })

  test('points a TypeBox reference by id at the component of that name', () => {
    const components: Record<string, unknown> = {}
    expect(schemaRef(t.Object({ plan: t.Ref('Plan') }), components)).toMatchObject({
      properties: { plan: { $ref: '#/components/schemas/Plan' } },
    })
  })

  test('describes in place a schema whose name another schema already took', () => {
    const components: Record<string, unknown> = { Limits: { type: 'string' } }
    expect(schemaRef(Limits, components)).toMatchObject({ type: 'object', required: ['sizeMB'] })
    expect(components.Limits).toEqual({ type: 'string' })
  })
})

/** The path and query parameters of an operation (conditional-request headers left out). */
const pathAndQuery = (operation: Record<string, unknown>) =>
  (operation.parameters as Record<string, unknown>[]).filter((parameter) => parameter.in !== 'header')

describe('operationOf', () => {
  test('declares each path parameter as required, with its description beside the schema, not in it', () => {
    const params = t.Object({ id: t.String({ pattern: '^plan_', description: 'Plan id.' }) })
    const operation = operationOf(route({ path: '/plans/:id', params }), 'plans', '/api/v1/plans/{id}', {})
    expect(pathAndQuery(operation)).toEqual([
      {
        name: 'id',
        in: 'path',
        required: true,
        description: 'Plan id.',
        schema: { type: 'string', pattern: '^plan_' },
      },
    ])
  })

  test('declares a path parameter without a schema as a string', () => {
    const operation = operationOf(route({ path: '/plans/:id' }), 'plans', '/api/v1/plans/{id}', {})
    expect(pathAndQuery(operation)).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
    ])
  })

  test('refuses a params schema naming a parameter the path lacks', () => {
    const params = t.Object({ planId: t.String() })
    expect(() =>
      operationOf(route({ path: '/plans/:id', params }), 'plans', '/api/v1/plans/{id}', {}),
    ).toThrow('planId')
  })

  test('declares query parameters as required only when the schema requires them', () => {
    const query = t.Object({ limit: t.Optional(t.Integer()), status: t.String() })
    const operation = operationOf(route({ query }), 'plans', '/api/v1/plans', {})
    expect(pathAndQuery(operation)).toMatchObject([
      { name: 'limit', in: 'query', required: false },
      { name: 'status', in: 'query', required: true },
    ])
  })

  test('documents 422 even without a query schema, since unknown query parameters are refused', () => {
    const operation = operationOf(route({}), 'plans', '/api/v1/plans', {})
    expect(operation.responses).toHaveProperty('422')
  })
})

describe('conditional requests and response headers', () => {
  test('a single-resource read documents ETag, If-None-Match and 304; a change of it If-Match and 412', () => {
    const read = operationOf(route({ path: '/plans/:id' }), 'plans', '/api/v1/plans/{id}', {})
    const responses = read.responses as Record<string, { headers?: Record<string, unknown> }>
    expect(responses['200']?.headers).toHaveProperty('ETag')
    expect(responses['200']?.headers).toHaveProperty('X-Request-Id')
    expect(responses).toHaveProperty('304')
    expect(read.parameters).toContainEqual(expect.objectContaining({ name: 'If-None-Match', in: 'header' }))
    const change = operationOf(
      { ...route({ path: '/plans/:id', params: t.Object({ id: t.String() }) }), method: 'PATCH' },
      'plans',
      '/api/v1/plans/{id}',
      {},
    )
    expect(change.parameters).toContainEqual(expect.objectContaining({ name: 'If-Match', in: 'header' }))
    expect(change.responses).toHaveProperty('412')
  })

  test('every answer declares X-Request-Id and the rate limit headers; a 429 Retry-After', () => {
    const operation = operationOf(route({}), 'plans', '/api/v1/plans', {})
    const responses = operation.responses as Record<string, { headers?: Record<string, unknown> }>
    expect(Object.keys(responses['200']?.headers ?? {})).toEqual(
      expect.arrayContaining(['X-Request-Id', 'RateLimit', 'RateLimit-Policy']),
    )
    expect(responses['429']?.headers).toHaveProperty('Retry-After')
  })

  test('references a header only where the answer always carries it; elsewhere describes it in place, not required', () => {
    const ref = (name: string) => ({ $ref: `#/components/headers/${name}` })
    const create = operationOf(
      { ...route({}), method: 'POST', idempotent: true, responses: { 201: { description: 'Made.' } } },
      'plans',
      '/api/v1/plans',
      {},
    )
    const responses = create.responses as Record<string, { headers: Record<string, Record<string, unknown>> }>
    const made = responses['201']?.headers ?? {}
    expect(made['X-Request-Id']).toEqual(ref('X-Request-Id'))
    expect(made.RateLimit).toEqual(ref('RateLimit'))
    // Only a replay carries it; generators type a referenced header as always present.
    expect(made['Idempotent-Replayed']).toMatchObject({ required: false, schema: { enum: ['true'] } })
    expect(responses['429']?.headers['Retry-After']).toEqual(ref('Retry-After'))
    // 409 also answers codes that send no Retry-After.
    expect(responses['409']?.headers['Retry-After']).toMatchObject({ required: false })
    for (const described of Object.values(responseHeaders))
      expect(described).toMatchObject({ required: true })

    const open = operationOf({ ...route({}), public: true, scope: undefined }, 'plans', '/api/v1/plans', {})
    const answered = (open.responses as Record<string, { headers: Record<string, unknown> }>)['200']?.headers
    // Public operations are counted by address, which an embedding host may not know.
    expect(answered?.RateLimit).toMatchObject({ required: false })
  })
})

describe('credentials of their own', () => {
  test('a public route that checks its own credential documents it as the operation’s security', () => {
    const credential = {
      name: 'nodeAgentToken',
      scheme: { type: 'http', scheme: 'bearer' },
      authenticate: async () => 'node',
    }
    const operation = operationOf(
      { ...route({ path: '/nodes/:id/metrics' }), public: true, scope: undefined, credential },
      'nodes',
      '/api/v1/nodes/{id}/metrics',
      {},
    )
    expect(operation.security).toEqual([{ nodeAgentToken: [] }])
    expect(String(operation.description)).toContain('Authenticated with `nodeAgentToken`')
  })
})
