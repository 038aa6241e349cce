// A typed client generated from the served document by an ecosystem generator (openapi-typescript) compiles under
// the project's tsc and types what clients rely on: the response headers, and problem+json on every refusal. And
// the headers the document says an answer always carries are really there.
//
// openapi-typescript 6 (not 7): 7 builds its output with the TypeScript 5 compiler API, a peer dependency that
// cannot sit beside this project's TypeScript 7 (which has no such API); 6 writes its output as text.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import openapiTS, { type OpenAPI3 } from 'openapi-typescript'
import { repoRoot } from './testing/host-process.ts'
import { createTestPanel, login, type TestPanel, testPassword } from './testing/index.ts'

type JsonObject = Record<string, unknown>

/** What the generated types must say; compiled beside them. Each line fails to compile if the typing is lost. */
const expectations = `
import type { components, operations } from './api.ts'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
type Expect<T extends true> = T
/** Whether header (or member) K of T may be absent; a K that T lacks does not compile. */
type Optional<T, K extends keyof T> = {} extends Pick<T, K> ? true : false

type Problem = components['schemas']['Problem']
type CreateSite = operations['createSite']['responses']
type GetSite = operations['getSite']['responses']
type Login = operations['login']['responses']

export type Checks = [
  // Every answer carries its request id; an authenticated one the rate limit it counted against.
  Expect<Equal<CreateSite[201]['headers']['X-Request-Id'], string>>,
  Expect<Equal<Optional<CreateSite[201]['headers'], 'X-Request-Id'>, false>>,
  Expect<Equal<Optional<CreateSite[201]['headers'], 'RateLimit'>, false>>,
  Expect<Equal<Optional<CreateSite[201]['headers'], 'RateLimit-Policy'>, false>>,
  Expect<Equal<CreateSite[201]['headers']['Location'], string>>,
  // A replay says so; a first answer does not carry the header at all.
  Expect<Equal<Optional<CreateSite[201]['headers'], 'Idempotent-Replayed'>, true>>,
  Expect<Equal<NonNullable<CreateSite[201]['headers']['Idempotent-Replayed']>, 'true'>>,
  // 429 says how long to wait, in seconds; a 409 only when the same key is still in flight.
  Expect<Equal<CreateSite[429]['headers']['Retry-After'], number>>,
  Expect<Equal<Optional<CreateSite[429]['headers'], 'RateLimit'>, false>>,
  Expect<Equal<Optional<CreateSite[409]['headers'], 'Retry-After'>, true>>,
  // Conditional requests: the tag of a read, and a 304 without a body.
  Expect<Equal<GetSite[200]['headers']['ETag'], string>>,
  Expect<Equal<GetSite[304]['headers']['ETag'], string>>,
  Expect<Equal<GetSite[304]['content'], never>>,
  Expect<Equal<operations['updateSite']['responses'][412]['headers']['ETag'], string>>,
  // A secret shown once is not to be cached.
  Expect<Equal<operations['createApiToken']['responses'][201]['headers']['Cache-Control'], 'no-store'>>,
  // Every 401 challenges; a 403 only for a missing scope.
  Expect<Equal<GetSite[401]['headers']['WWW-Authenticate'], string>>,
  Expect<Equal<Optional<GetSite[403]['headers'], 'WWW-Authenticate'>, true>>,
  // Refusals carry what is left of the allowance when the request was counted before it was refused.
  Expect<Equal<Optional<GetSite[404]['headers'], 'RateLimit'>, true>>,
  Expect<Equal<NonNullable<GetSite[404]['headers']['RateLimit']>, string>>,
  // Public operations are limited by address, which an embedding host may not know.
  Expect<Equal<Optional<Login[200]['headers'], 'RateLimit'>, true>>,
  // Refusals are problem documents with a closed set of codes.
  Expect<Equal<CreateSite[422]['content']['application/problem+json'], Problem>>,
  Expect<Equal<GetSite[404]['content']['application/problem+json'], Problem>>,
  Expect<Equal<Problem['status'], number>>,
  Expect<'validation_failed' extends Problem['code'] ? true : false>,
  Expect<'illegal_site_transition' extends Problem['code'] ? true : false>,
  Expect<'precondition_failed' extends Problem['code'] ? true : false>,
  Expect<Equal<'no_such_code' extends Problem['code'] ? true : false, false>>,
  Expect<Equal<NonNullable<Problem['errors']>[number]['location'], string>>,
  Expect<Equal<Optional<Problem, 'currentStatus'>, true>>,
  Expect<Equal<Optional<Problem, 'requestedStatus'>, true>>,
]

// Client code as a person would write it against the types.
export function secondsToWait(answer: CreateSite[429]): number {
  return answer.headers['Retry-After']
}

export function describeRefusal(answer: CreateSite[422]): string {
  const problem = answer.content['application/problem+json']
  const fields = (problem.errors ?? []).map((item) => \`\${item.location} (\${item.code ?? problem.code})\`)
  return \`\${problem.status} \${problem.code}: \${fields.join(', ')} [\${problem.requestId ?? ''}]\`
}

export function wasReplayed(answer: CreateSite[201]): boolean {
  return answer.headers['Idempotent-Replayed'] === 'true'
}
`

const compilerOptions = {
  strict: true,
  noEmit: true,
  target: 'ES2022',
  lib: ['ES2022'],
  module: 'ESNext',
  moduleResolution: 'bundler',
  allowImportingTsExtensions: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  types: [],
}

let tp: TestPanel
let document: JsonObject
let workDir: string

beforeAll(async () => {
  // A low rate limit, so a 429 is cheap to provoke; each test uses tokens of its own.
  tp = await createTestPanel({ rateLimits: { perMinute: 20 } })
  const response = await tp.request('GET', '/api/docs', { headers: { accept: 'application/json' } })
  document = (await response.json()) as JsonObject
  workDir = mkdtempSync(join(tmpdir(), 'plinth-openapi-client-'))
})

afterAll(async () => {
  await tp.panel.close()
  rmSync(workDir, { recursive: true, force: true })
})

describe('a client generated by openapi-typescript', () => {
  test('compiles under tsc with types for the response headers and problem responses', async () => {
    const generated = await openapiTS(structuredClone(document) as unknown as OpenAPI3, {
      silent: true,
      // The document refers to nothing outside itself: nothing is to be fetched.
      fetch: () => Promise.reject(new Error('The generator tried to fetch a reference')),
    })
    // Headers the document declares reach the types, referenced from their one description.
    expect(generated).toContain('"X-Request-Id": components["headers"]["X-Request-Id"];')
    expect(generated).toContain('"Idempotent-Replayed"?: "true";')
    writeFileSync(join(workDir, 'api.ts'), generated)
    writeFileSync(join(workDir, 'expectations.ts'), expectations)
    writeFileSync(
      join(workDir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions, files: ['api.ts', 'expectations.ts'] }),
    )
    const tsc = Bun.spawn([join(repoRoot, 'node_modules', '.bin', 'tsc'), '-p', workDir], {
      cwd: workDir,
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [stdout, stderr, exitCode] = await Promise.all([
      new Response(tsc.stdout).text(),
      new Response(tsc.stderr).text(),
      tsc.exited,
    ])
    expect(`${stdout}${stderr}`).toBe('')
    expect(exitCode).toBe(0)
  })
})

/** The names of the headers the document says this answer always carries, lower-case. */
function requiredHeaders(path: string, method: string, status: number): string[] {
  const paths = document.paths as Record<string, Record<string, { responses: Record<string, JsonObject> }>>
  const response = paths[path]?.[method]?.responses[String(status)]
  expect(response, `${method.toUpperCase()} ${path} ${status} is documented`).toBeDefined()
  const components = (document.components as { headers: Record<string, JsonObject> }).headers
  return Object.entries((response?.headers ?? {}) as Record<string, JsonObject>)
    .filter(([, declared]) => {
      const ref = typeof declared.$ref === 'string' ? declared.$ref.split('/').at(-1) : undefined
      return (ref === undefined ? declared : components[ref])?.required === true
    })
    .map(([name]) => name.toLowerCase())
}

/** The names of every header the document declares on this answer, lower-case. */
function declaredHeaders(path: string, method: string, status: number): string[] {
  const paths = document.paths as Record<string, Record<string, { responses: Record<string, JsonObject> }>>
  const response = paths[path]?.[method]?.responses[String(status)]
  return Object.keys((response?.headers ?? {}) as JsonObject).map((name) => name.toLowerCase())
}

/** Headers of the panel's own that a client reads: whenever one is sent, the document must declare it. */
const panelHeaders = ['ratelimit', 'ratelimit-policy', 'retry-after', 'etag', 'location', 'www-authenticate']

/**
 * Asserts that `response` is documented for this operation, carries every header documented as always sent, and
 * sends none of the panel's headers the document does not declare (RateLimit on refusals once was).
 */
function expectDeclaredHeaders(response: Response, path: string, method: string): void {
  const where = `${method.toUpperCase()} ${path} ${response.status}`
  const missing = requiredHeaders(path, method, response.status).filter((name) => !response.headers.has(name))
  expect(missing, where).toEqual([])
  const declared = declaredHeaders(path, method, response.status)
  const undeclared = panelHeaders.filter((name) => response.headers.has(name) && !declared.includes(name))
  expect(undeclared, where).toEqual([])
}

describe('the headers the document declares as always sent', () => {
  test('are on success, 304, 401, 403, 404, 412, 422 and 429 answers, and none is sent undeclared', async () => {
    const token = await tp.token()
    const created = await tp.request('POST', '/api/v1/customers', {
      token,
      body: { name: 'Headers Inc' },
      headers: { 'idempotency-key': 'headers-1' },
    })
    expect(created.status).toBe(201)
    expectDeclaredHeaders(created, '/api/v1/customers', 'post')
    const replayed = await tp.request('POST', '/api/v1/customers', {
      token,
      body: { name: 'Headers Inc' },
      headers: { 'idempotency-key': 'headers-1' },
    })
    expect(replayed.headers.get('idempotent-replayed')).toBe('true')
    const { id } = (await created.json()) as { id: string }
    const one = '/api/v1/customers/{id}'

    const read = await tp.request('GET', `/api/v1/customers/${id}`, { token })
    expect(read.status).toBe(200)
    expectDeclaredHeaders(read, one, 'get')
    const etag = read.headers.get('etag') ?? ''
    const unchanged = await tp.request('GET', `/api/v1/customers/${id}`, {
      token,
      headers: { 'if-none-match': etag },
    })
    expect(unchanged.status).toBe(304)
    expectDeclaredHeaders(unchanged, one, 'get')

    const anonymous = await tp.request('GET', `/api/v1/customers/${id}`)
    expect(anonymous.status).toBe(401)
    expectDeclaredHeaders(anonymous, one, 'get')
    const narrow = await tp.token({ scopes: ['site:read'] })
    const forbidden = await tp.request('GET', `/api/v1/customers/${id}`, { token: narrow })
    expect(forbidden.status).toBe(403)
    expectDeclaredHeaders(forbidden, one, 'get')
    const missing = await tp.request('GET', '/api/v1/customers/cus_01M80QJY0XWSRMQ50BB8KAM10K', { token })
    expect(missing.status).toBe(404)
    expectDeclaredHeaders(missing, one, 'get')

    const stale = await tp.request('PATCH', `/api/v1/customers/${id}`, {
      token,
      body: { name: 'Renamed' },
      headers: { 'if-match': '"bogus"' },
    })
    expect(stale.status).toBe(412)
    expectDeclaredHeaders(stale, one, 'patch')
    const invalid = await tp.request('PATCH', `/api/v1/customers/${id}`, { token, body: { name: '' } })
    expect(invalid.status).toBe(422)
    expectDeclaredHeaders(invalid, one, 'patch')

    const busy = await tp.token()
    let limited: Response | undefined
    for (let attempt = 0; attempt < 25 && !limited; attempt++) {
      const response = await tp.request('GET', `/api/v1/customers/${id}`, { token: busy })
      if (response.status === 429) limited = response
      else await response.arrayBuffer()
    }
    expect(limited?.status).toBe(429)
    if (limited) expectDeclaredHeaders(limited, one, 'get')
  })

  test('include Cache-Control: no-store where a secret is shown, and on login the session cookie', async () => {
    const staff = await tp.staff()
    const signedIn = await login(tp, staff.email, testPassword)
    expect(signedIn.status).toBe(200)
    expectDeclaredHeaders(signedIn, '/api/v1/auth/login', 'post')
    const token = await tp.token()
    const minted = await tp.request('POST', '/api/v1/api-tokens', {
      token,
      body: { name: 'generated client', scopes: ['site:read'] },
    })
    expect(minted.status).toBe(201)
    expect(minted.headers.get('cache-control')).toBe('no-store')
    expectDeclaredHeaders(minted, '/api/v1/api-tokens', 'post')
  })
})
