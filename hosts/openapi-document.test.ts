// The served OpenAPI document, fetched over HTTP: valid 3.1, clean under Redocly and Spectral, complete per operation,
// negotiated.

import { afterAll, beforeAll, describe, expect, spyOn, test } from 'bun:test'
import { BaseResolver, createConfig, lintFromString, type Source } from '@redocly/openapi-core'
import { Validator } from '@seriousme/openapi-schema-validator'
import { type RulesetDefinition, Spectral } from '@stoplight/spectral-core'
import { oas } from '@stoplight/spectral-rulesets'
import { createTestPanel, type TestPanel } from './testing/index.ts'

interface SchemaObject {
  readonly $ref?: string
  readonly type?: string
  readonly required?: readonly string[]
  readonly properties?: Readonly<Record<string, SchemaObject>>
  readonly additionalProperties?: unknown
  readonly enum?: readonly string[]
}

interface MediaTypes {
  readonly content?: Readonly<Record<string, { readonly schema?: SchemaObject }>>
}

interface Operation {
  readonly operationId?: string
  readonly summary?: string
  readonly tags?: readonly string[]
  readonly security?: readonly Readonly<Record<string, readonly string[]>>[]
  readonly requestBody?: MediaTypes
  readonly responses?: Readonly<Record<string, MediaTypes>>
}

interface OpenApiDocument {
  readonly openapi: string
  readonly tags: readonly { readonly name: string }[]
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>
  readonly components: {
    readonly schemas: Readonly<Record<string, SchemaObject>>
    readonly securitySchemes: Readonly<Record<string, Readonly<Record<string, unknown>>>>
  }
  readonly 'x-scopes': readonly { readonly name: string }[]
}

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']
// The node metrics route checks the node's own agent token (docs/nodes.md), not a user credential.
// The branding a sign-in page shows is read before anyone has signed in (docs/brands.md).
const publicPaths = ['/healthz', '/readyz', '/api/v1/auth/login', '/api/v1/branding']
/** Operations the kernel does not authenticate, whose handlers check a credential of their own. */
const ownCredentialPaths: Readonly<Record<string, string>> = {
  '/api/v1/nodes/{id}/metrics': 'nodeAgentToken',
  '/api/v1/agent/work': 'nodeAgentToken',
  '/api/v1/agent/leaving': 'nodeAgentToken',
  '/api/v1/agent/commands/{id}': 'nodeAgentToken',
  '/api/v1/sites/{id}/shell-sessions/{sessionId}/connect': 'shellSessionToken',
  '/api/v1/file-downloads': 'downloadLinkToken',
  '/api/v1/backup-downloads': 'backupDownloadToken',
}
/** Redocly warnings the document keeps, each with the reason it is not fixed. */
const redoclyWarningsLeft: readonly (readonly [RegExp, string])[] = [
  [
    /^warn operation-2xx-response at #\/paths\/~1api~1v1~1sites~1\{id\}~1shell-sessions~1\{sessionId\}~1connect\/get\/responses:/,
    'A WebSocket handshake answers 101 Switching Protocols (RFC 6455), never a 2XX: declaring one the endpoint never sends would mislead generated clients.',
  ],
]
/** Spectral warnings the document keeps, each with the reason it is not fixed. */
const spectralWarningsLeft: Readonly<Record<string, string>> = {
  'info-contact':
    'The document describes one installation: whom its clients contact is its operator’s to say, and the panel has no setting for it yet.',
  'license-url':
    'OpenAPI 3.1 makes `license.url` and `license.identifier` mutually exclusive; the document names its licence by SPDX identifier.',
  'oas3-operation-security-defined':
    'OpenAPI 3.1 lets the requirement of an `http` or `apiKey` scheme list role names: there they name the scope an operation needs (listed in `x-scopes` and the description). Spectral looks for them among OAuth2 flows only.',
}

/** A Redocly resolver that loads nothing: any reference out of the document is recorded and fails. */
class LocalOnlyResolver extends BaseResolver {
  readonly attempted: string[] = []

  override async loadExternalRef(absoluteRef: string): Promise<Source> {
    this.attempted.push(absoluteRef)
    throw new Error(`The document refers to ${absoluteRef}, outside itself`)
  }
}

const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'
const problemJson = 'application/problem+json'

let tp: TestPanel
let text: string
let document: OpenApiDocument

beforeAll(async () => {
  tp = await createTestPanel()
  const response = await tp.request('GET', '/api/docs', { headers: { accept: 'application/json' } })
  text = await response.text()
  document = JSON.parse(text) as OpenApiDocument
})

afterAll(async () => {
  await tp.panel.close()
})

function operations(): { readonly method: string; readonly path: string; readonly operation: Operation }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    methods.flatMap((method) => {
      const operation = item[method]
      return operation ? [{ method, path, operation }] : []
    }),
  )
}

function resolved(schema: SchemaObject | undefined): SchemaObject | undefined {
  const name = schema?.$ref?.replace('#/components/schemas/', '')
  return name === undefined ? schema : document.components.schemas[name]
}

function label(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`
}

describe('the OpenAPI document', () => {
  test('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(document) as unknown as Record<string, unknown>)
    expect(validator.version).toBe('3.1')
    expect({ valid: result.valid, errors: result.errors }).toEqual({ valid: true, errors: undefined })
  })

  test('has no problem, error or warning, under Redocly’s recommended rules, without reaching the network', async () => {
    // No rule is turned off: the document passes `recommended` as Redocly ships it.
    const config = await createConfig({ extends: ['recommended'] })
    // The document refers to nothing outside itself; a reference that did would be reported, never fetched.
    const resolver = new LocalOnlyResolver()
    const refuse = async (input: string | URL | Request): Promise<Response> => {
      throw new Error(`The lint tried to fetch ${String(input)}`)
    }
    const fetchSpy = spyOn(globalThis, 'fetch').mockImplementation(
      Object.assign(refuse, { preconnect: globalThis.fetch.preconnect }),
    )
    try {
      const problems = await lintFromString({
        source: text,
        absoluteRef: 'http://plinth.test/api/docs',
        config,
        externalRefResolver: resolver,
      })
      expect(
        problems
          .map(
            (problem) =>
              `${problem.severity} ${problem.ruleId} at ${problem.location[0]?.pointer ?? '?'}: ${problem.message}`,
          )
          .filter((line) => !redoclyWarningsLeft.some(([pattern]) => pattern.test(line))),
      ).toEqual([])
      expect(fetchSpy).not.toHaveBeenCalled()
      expect(resolver.attempted).toEqual([])
    } finally {
      fetchSpy.mockRestore()
    }
  })

  test('has no errors under Spectral’s OpenAPI rules, and no warnings but the ones left on purpose', async () => {
    const spectral = new Spectral()
    // The published type of `oas` widens one rule's severity to string, so it is cast to what it is.
    spectral.setRuleset({ extends: [[oas as RulesetDefinition, 'all']] })
    // A string is parsed as YAML, of which JSON is a subset: the served bytes are linted as they are.
    const results = await spectral.run(text)
    const describe = (result: (typeof results)[number]) =>
      `${result.code} at ${result.path.join('.')}: ${result.message}`
    expect(results.filter((result) => result.severity === 0).map(describe)).toEqual([])
    const warnings = results.filter((result) => result.severity === 1)
    expect(warnings.filter((result) => !(String(result.code) in spectralWarningsLeft)).map(describe)).toEqual(
      [],
    )
    // The list stays exact: a warning that no longer occurs is taken off it.
    expect([...new Set(warnings.map((result) => String(result.code)))].toSorted()).toEqual(
      Object.keys(spectralWarningsLeft).toSorted(),
    )
  })

  test('lists the operations of the kernel and the standard plugins, each under a unique operationId', () => {
    const ids = operations().map(({ operation }) => operation.operationId)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids).toEqual(
      expect.arrayContaining([
        'getHealth',
        'getReadiness',
        'createCustomer',
        'getCustomer',
        'createSite',
        'getSite',
      ]),
    )
  })

  test('gives every operation an operationId, a summary and exactly one tag that the document defines', () => {
    const defined = new Set(document.tags.map((tag) => tag.name))
    for (const { method, path, operation } of operations()) {
      const where = label(method, path)
      expect(operation.operationId, where).toMatch(/^[a-z][A-Za-z0-9]*$/)
      expect(operation.summary?.trim(), where).toBeTruthy()
      expect(operation.tags, where).toHaveLength(1)
      expect(defined.has(operation.tags?.[0] ?? ''), where).toBe(true)
    }
  })

  test('leaves only health checks, login and the sign-in page’s branding public; node reports take the agent token; every other operation takes a token or the session, with its scope', () => {
    const scopes = new Set(document['x-scopes'].map((scope) => scope.name))
    for (const { method, path, operation } of operations()) {
      const where = label(method, path)
      if (publicPaths.includes(path)) {
        expect(operation.security, where).toEqual([])
        continue
      }
      const own = ownCredentialPaths[path]
      if (own) {
        expect(operation.security, where).toEqual([{ [own]: [] }])
        // A bearer token (a node's agent), or a single-purpose token in the query (a link a browser follows).
        const scheme = document.components.securitySchemes[own] as {
          type: string
          scheme?: string
          in?: string
        }
        expect(scheme.type === 'http' ? scheme.scheme : scheme.in, where).toBe(
          scheme.type === 'http' ? 'bearer' : 'query',
        )
        continue
      }
      expect(
        operation.security?.map((requirement) => Object.keys(requirement)),
        where,
      ).toEqual([['apiToken'], ['session']])
      const [token = {}, session = {}] = operation.security ?? []
      expect(token.apiToken, where).toEqual(session.session ?? [])
      // One declared scope, or none for operations open to any signed-in caller (`/me`, own tokens).
      expect((token.apiToken ?? []).length, where).toBeLessThanOrEqual(1)
      for (const scope of token.apiToken ?? []) expect(scopes.has(scope), where).toBe(true)
    }
    const open = operations().filter(({ operation }) => operation.security?.[0]?.apiToken?.length === 0)
    expect(open.map(({ operation }) => operation.operationId).sort()).toEqual([
      'changePassword',
      'createApiToken',
      'deleteSession',
      'getApiToken',
      'getCapabilities',
      'getMe',
      'getUsage',
      'listApiTokens',
      'listSessions',
      'logout',
      'revokeApiToken',
    ])
  })

  test('documents 401 (and 403 where a scope or CSRF can refuse) as problem+json, and 422 on those with a body', () => {
    for (const { method, path, operation } of operations()) {
      const where = label(method, path)
      const guarded = !publicPaths.includes(path) && !(path in ownCredentialPaths)
      const mayForbid = guarded && (method !== 'get' || (operation.security?.[0]?.apiToken?.length ?? 0) > 0)
      const statuses = [
        ...(guarded ? ['401'] : []),
        ...(mayForbid ? ['403'] : []),
        ...(operation.requestBody ? ['422'] : []),
      ]
      for (const status of statuses) {
        const schema = operation.responses?.[status]?.content?.[problemJson]?.schema
        expect(schema, `${where} ${status}`).toEqual({ $ref: '#/components/schemas/Problem' })
      }
    }
  })

  test('describes the body of POST /api/v1/sites as a closed object of four required fields, optional limits, the node staff choose and the options site types add', () => {
    const body = document.paths['/api/v1/sites']?.post?.requestBody
    const schema = resolved(body?.content?.['application/json']?.schema)
    const fields = ['customerId', 'name', 'type', 'domain']
    expect(schema?.type).toBe('object')
    expect(Object.keys(schema?.properties ?? {}).toSorted()).toEqual(
      [...fields, 'limits', 'nodeId', 'wordpress', 'php', 'static'].toSorted(),
    )
    expect([...(schema?.required ?? [])].toSorted()).toEqual(fields.toSorted())
    expect(schema?.additionalProperties).toBe(false)
  })

  test('bounds every input: strings have a maximum length (or a pattern), arrays a maximum size', () => {
    const unbounded: string[] = []
    const walk = (schema: SchemaObject | undefined, where: string): void => {
      const node = resolved(schema) as Record<string, unknown> | undefined
      if (!node) return
      if (
        node.type === 'string' &&
        node.maxLength === undefined &&
        node.enum === undefined &&
        node.pattern === undefined &&
        node.const === undefined
      ) {
        unbounded.push(where)
      }
      if (node.type === 'array' && node.maxItems === undefined) unbounded.push(where)
      for (const [name, child] of Object.entries((node.properties ?? {}) as Record<string, SchemaObject>)) {
        walk(child, `${where}.${name}`)
      }
      if (node.items) walk(node.items as SchemaObject, `${where}[]`)
      for (const key of ['anyOf', 'oneOf', 'allOf']) {
        for (const [index, child] of ((node[key] ?? []) as SchemaObject[]).entries())
          walk(child, `${where}|${index}`)
      }
    }
    for (const { method, path, operation } of operations()) {
      walk(operation.requestBody?.content?.['application/json']?.schema, `${label(method, path)} body`)
      const parameters =
        (operation as { parameters?: { name: string; schema: SchemaObject }[] }).parameters ?? []
      for (const parameter of parameters) walk(parameter.schema, `${label(method, path)} ${parameter.name}`)
    }
    expect(unbounded).toEqual([])
  })

  test('titles every problem response with its status’s reason phrase, as the answers do', async () => {
    // Outside clients found 412, 416, 426 and 502 described (and answered) as "Client Error".
    const phrases: Readonly<Record<string, string>> = {
      '412': 'Precondition Failed',
      '416': 'Range Not Satisfiable',
      '422': 'Unprocessable Content',
      '426': 'Upgrade Required',
      '502': 'Bad Gateway',
    }
    const seen = new Set<string>()
    for (const { method, path, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (!response.content?.[problemJson]) continue
        const { description } = response as { description: string }
        expect(description, `${label(method, path)} ${status}`).not.toMatch(/^(Client|Server) Error/)
        const phrase = phrases[status]
        if (phrase === undefined) continue
        expect(description, `${label(method, path)} ${status}`).toStartWith(`${phrase}: `)
        seen.add(status)
      }
    }
    expect([...seen].toSorted()).toEqual(Object.keys(phrases).toSorted())
    const token = await tp.token()
    const created = await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Titles Inc' } })
    const { id } = (await created.json()) as { id: string }
    const stale = await tp.request('PATCH', `/api/v1/customers/${id}`, {
      token,
      body: { name: 'Renamed' },
      headers: { 'if-match': '"stale"' },
    })
    expect(stale.status).toBe(412)
    expect(((await stale.json()) as { title: string }).title).toBe('Precondition Failed')
  })

  test('declares the request headers operations read, and none they ignore', () => {
    // Outside clients found Upload-Offset and Range read but undeclared (a validating proxy strips or refuses them).
    const headersOf = (path: string, method: string) =>
      Object.fromEntries(
        (
          (
            document.paths[path]?.[method] as {
              parameters?: { name: string; in: string; required: boolean }[]
            }
          )?.parameters ?? []
        )
          .filter((parameter) => parameter.in === 'header')
          .map((parameter) => [parameter.name, parameter.required]),
      )
    expect(headersOf('/api/v1/sites/{id}/files/uploads/{uploadId}', 'put')).toEqual({ 'Upload-Offset': true })
    const read = { 'If-None-Match': false, Range: false, 'If-Range': false }
    expect(headersOf('/api/v1/sites/{id}/files/content', 'get')).toEqual(read)
    expect(headersOf('/api/v1/file-downloads', 'get')).toEqual(read)
    expect(headersOf('/api/v1/sites/{id}/files/content', 'put')).toEqual({
      'If-Match': false,
      'If-None-Match': false,
    })
    expect(headersOf('/api/v1/sites/{id}/files/uploads/{uploadId}', 'delete')).toEqual({})
    expect(headersOf('/api/v1/sites/{id}', 'patch')).toEqual({ 'If-Match': false })
    expect(headersOf('/api/v1/sites/{id}', 'get')).toEqual({ 'If-None-Match': false })
  })

  test('names every kernel and plugin problem code in the Problem schema', () => {
    const codes = document.components.schemas.Problem?.properties?.code?.enum ?? []
    expect(codes).toEqual(
      expect.arrayContaining([
        'validation_failed',
        'insufficient_scope',
        'unauthenticated',
        'unknown_site_type',
        'unknown_customer',
        'invalid_domain',
        'domain_in_use',
      ]),
    )
  })

  test('is the same at /api/docs/openapi.json', async () => {
    const response = await tp.request('GET', '/api/docs/openapi.json')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toStartWith('application/json')
    expect(await response.json()).toEqual(document)
  })
})

describe('GET /api/docs', () => {
  const served = async (accept: string | undefined) => {
    const response = await tp.request('GET', '/api/docs', accept === undefined ? {} : { headers: { accept } })
    expect(response.status).toBe(200)
    return response
  }

  test('answers JSON to curl’s */*', async () => {
    const response = await served('*/*')
    expect(response.headers.get('content-type')).toStartWith('application/json')
    expect((await response.json()).openapi).toBe('3.1.0')
  })

  test('answers JSON when no Accept header is sent', async () => {
    const response = await served(undefined)
    expect(response.headers.get('content-type')).toStartWith('application/json')
    expect((await response.json()).openapi).toBe('3.1.0')
  })

  test('answers JSON to an explicit application/json', async () => {
    const response = await served('application/json')
    expect(response.headers.get('content-type')).toStartWith('application/json')
    expect((await response.json()).openapi).toBe('3.1.0')
  })

  test('answers a browser with an HTML page whose assets are relative and served by the panel', async () => {
    const response = await served(browserAccept)
    expect(response.headers.get('content-type')).toStartWith('text/html')
    const html = await response.text()
    const urls = [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((match) => match[1] ?? '')
    expect(urls.length).toBeGreaterThanOrEqual(3)
    for (const url of urls) {
      expect(url).not.toMatch(/^(?:[a-z][a-z0-9+.-]*:|\/\/)/i)
      const { pathname } = new URL(url, 'http://localhost/api/docs')
      expect(pathname).toStartWith('/api/docs/assets/')
      const asset = await tp.request('GET', pathname)
      expect(asset.status, pathname).toBe(200)
      await asset.arrayBuffer()
    }
  })

  test('answers an unknown asset with a 404 problem', async () => {
    const response = await tp.request('GET', '/api/docs/assets/no-such-file.js')
    expect(response.status).toBe(404)
    expect(response.headers.get('content-type')).toStartWith(problemJson)
    expect((await response.json()).status).toBe(404)
  })
})
