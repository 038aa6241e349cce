// The OpenAPI operation of one route, written from its declaration: schemas, scope, and every problem it can answer.

import { isDeepStrictEqual } from 'node:util'
import type { TSchema } from '@sinclair/typebox'
import { acceptsEmptyBody } from '../http/request-body.ts'
import { closeObjects } from '../http/schema-strictness.ts'
import { pageOf, pageQuery } from '../pagination/paginate.ts'
import type { RouteDefinition, RouteResponse } from '../plugin/route.ts'
import { routeProblems } from '../plugin/route-problems.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import type { ProblemRef } from '../problem/problem-code.ts'
import { statusTitle } from '../problem/status-titles.ts'

type JsonObject = Record<string, unknown>

/** Keywords whose values are data, not schemas: never searched for `$id`. */
const dataKeywords = new Set(['const', 'enum', 'default', 'examples', 'example'])

/** Keywords whose values map names (which may be `default` or `enum`) to schemas. */
const schemaMaps = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'])

/** Names OpenAPI accepts as keys of `components.schemas`. */
const componentNamePattern = /^[A-Za-z0-9._-]+$/

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The value of keyword `key` of a schema, with the schemas in it hoisted. */
function hoistKeyword(key: string, value: unknown, components: JsonObject): unknown {
  if (dataKeywords.has(key)) return value
  if (Array.isArray(value)) return value.map((item) => hoist(item, components))
  if (!isObject(value)) return value
  if (!schemaMaps.has(key)) return hoist(value, components)
  return Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, hoist(schema, components)]))
}

/**
 * TypeBox writes a union of literals as `anyOf: [{ const, type }, …]`; clients and generators expect `enum`, so a
 * union of string constants becomes `{ type: 'string', enum: [...] }`, keeping its description.
 */
function enumFromConstants(plain: JsonObject): void {
  const options = plain.anyOf
  if (!Array.isArray(options) || options.length === 0) return
  const constants = options.map((option) =>
    isObject(option) && option.type === 'string' ? option.const : undefined,
  )
  if (!constants.every((value) => typeof value === 'string')) return
  delete plain.anyOf
  plain.type = 'string'
  plain.enum = constants
}

/** `schema` with every named schema, itself and any nested one, moved to components and referenced. */
function hoist(schema: unknown, components: JsonObject): unknown {
  if (!isObject(schema)) return schema
  const plain: JsonObject = {}
  for (const [key, value] of Object.entries(schema)) plain[key] = hoistKeyword(key, value, components)
  enumFromConstants(plain)
  // TypeBox's `Type.Ref` points at a bare `$id`; named schemas live in components under that very name.
  if (typeof plain.$ref === 'string' && componentNamePattern.test(plain.$ref))
    plain.$ref = `#/components/schemas/${plain.$ref}`
  const id = plain.$id
  if (typeof id !== 'string') return plain
  delete plain.$id
  if (!componentNamePattern.test(id)) return plain
  const known = components[id]
  if (known !== undefined && !isDeepStrictEqual(known, plain)) {
    // The name is taken by a different schema (a request body's closed copy of a response schema, say):
    // this one is described in place rather than under a name that would misdescribe one of them.
    return plain
  }
  components[id] = plain
  return { $ref: `#/components/schemas/${id}` }
}

/** A JSON copy of a TypeBox schema; named ones (`$id`), nested ones too, are moved to components and referenced. */
export function schemaRef(schema: TSchema, components: JsonObject): JsonObject {
  return hoist(JSON.parse(JSON.stringify(schema)), components) as JsonObject
}

/**
 * Response headers the panel sends, described once in `components.headers`. Each is `required`: an answer lists it
 * by reference only where it always carries it. Where an answer carries a header only sometimes, the header is
 * described in place as not required (see {@link sometimes}): a `$ref` cannot say so, and client generators
 * (openapi-typescript among them) type every referenced header as present.
 */
export const responseHeaders: JsonObject = {
  'X-Request-Id': {
    description:
      'The id of this request (`req_…`, or the `X-Request-Id` the client sent when well-formed): in the server log, the audit log and every problem’s `requestId`.',
    required: true,
    schema: { type: 'string' },
  },
  RateLimit: {
    description:
      'What is left of the allowance: `"default";r=<remaining>;t=<seconds to reset>` (`"login";…` on login), IETF draft.',
    required: true,
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description: 'The allowance: `"default";q=<requests>;w=60` (`"login";…` on login), IETF draft.',
    required: true,
    schema: { type: 'string' },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again.',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  ETag: {
    description:
      'The strong entity tag of this representation: send it back in `If-None-Match` (304 when unchanged) or in `If-Match` on a change (412 when it changed meanwhile).',
    required: true,
    schema: { type: 'string' },
  },
  Location: {
    description: 'URL of the resource the answer is about.',
    required: true,
    schema: { type: 'string' },
  },
  'Cache-Control': {
    description: '`no-store`: the answer shows a secret once, which no cache may keep.',
    required: true,
    schema: { type: 'string', enum: ['no-store'] },
  },
  'WWW-Authenticate': {
    description: 'The Bearer challenge: how to authenticate, and with `insufficient_scope` the scope needed.',
    required: true,
    schema: { type: 'string' },
  },
}

/** Headers that are never always there, so only ever described in place. */
const occasionalHeaders: Readonly<Record<string, JsonObject>> = {
  'Idempotent-Replayed': {
    description:
      'Only on the kept answer of an earlier request with the same `Idempotency-Key`: `true`. Absent on a first answer.',
    required: false,
    schema: { type: 'string', enum: ['true'] },
  },
}

/** A header this answer always carries: a reference to its description. */
const header = (name: string) => ({ $ref: `#/components/headers/${name}` })

/** A header this answer carries only sometimes: its description in place, not required. */
function sometimes(name: string): JsonObject {
  const described = responseHeaders[name] ?? occasionalHeaders[name]
  if (!isObject(described)) throw new Error(`No description of the response header ${name}`)
  return { ...described, required: false }
}

/**
 * The rate limit headers of `route`'s answers. An authenticated route is charged to the caller's credential, so
 * every answer past authentication carries them, as does a route whose own credential names a rate key; a public
 * one is charged to the client's address, which a host may not know (an embedding fetch handler), and the health
 * checks are never limited.
 */
function rateLimitHeaders(route: RouteDefinition): JsonObject {
  if (route.rateLimited === false) return {}
  const pick = route.public && !route.credential?.rateKey ? sometimes : header
  return { RateLimit: pick('RateLimit'), 'RateLimit-Policy': pick('RateLimit-Policy') }
}

/**
 * The rate limit headers of `route`'s refusals other than 429: sent on every refusal made after the request was
 * counted, which is most of them, but not on those made before (a malformed `Idempotency-Key`, a 401 from a host
 * that knows no client address), so never promised.
 */
function refusalRateLimitHeaders(route: RouteDefinition): JsonObject {
  if (route.rateLimited === false) return {}
  return { RateLimit: sometimes('RateLimit'), 'RateLimit-Policy': sometimes('RateLimit-Policy') }
}

/** The headers every success of `route` carries. */
function commonHeaders(route: RouteDefinition): JsonObject {
  return {
    'X-Request-Id': header('X-Request-Id'),
    ...rateLimitHeaders(route),
    ...(route.idempotent ? { 'Idempotent-Replayed': sometimes('Idempotent-Replayed') } : {}),
  }
}

/** Headers a problem response of `status` carries, by the codes it lists. */
function problemHeaders(route: RouteDefinition, status: number, problems: readonly ProblemRef[]): JsonObject {
  const codes = new Set(problems.map((problem) => problem.code))
  if (status === 429) return { 'Retry-After': header('Retry-After'), ...rateLimitHeaders(route) }
  const counted = refusalRateLimitHeaders(route)
  // Every 401 challenges (the kernel's, and routes' own credentials); a 403 only for a missing scope.
  if (status === 401) return { 'WWW-Authenticate': header('WWW-Authenticate'), ...counted }
  // The kernel's 412 always names the current tag; a route's own (a file's) only when there is something to tag.
  if (status === 412)
    return {
      ETag: [...codes].every((code) => code === kernelProblems.precondition_failed.code)
        ? header('ETag')
        : sometimes('ETag'),
      ...counted,
    }
  return {
    ...counted,
    ...(codes.has(kernelProblems.idempotency_request_in_flight.code)
      ? { 'Retry-After': sometimes('Retry-After') }
      : {}),
    ...(codes.has(kernelProblems.insufficient_scope.code)
      ? { 'WWW-Authenticate': sometimes('WWW-Authenticate') }
      : {}),
  }
}

function problemResponses(route: RouteDefinition): Record<string, JsonObject> {
  const byStatus = new Map<number, ProblemRef[]>()
  for (const problem of routeProblems(route)) {
    const list = byStatus.get(problem.status) ?? []
    if (!list.some((known) => known.code === problem.code)) list.push(problem)
    byStatus.set(problem.status, list)
  }
  const responses: Record<string, JsonObject> = {}
  for (const [status, problems] of [...byStatus].sort(([a], [b]) => a - b)) {
    const codes = problems.map((problem) => `\`${problem.code}\``).join(', ')
    responses[String(status)] = {
      description: `${statusTitle(status)}: ${codes}.`,
      headers: { 'X-Request-Id': header('X-Request-Id'), ...problemHeaders(route, status, problems) },
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    }
  }
  return responses
}

function parameter(
  name: string,
  location: 'path' | 'query',
  required: boolean,
  schema: TSchema | undefined,
  components: JsonObject,
): JsonObject {
  const plain = schema ? schemaRef(schema, components) : { type: 'string' }
  // The description belongs to the parameter; repeated in its schema it would show twice.
  const { description, ...rest } = plain
  return {
    name,
    in: location,
    required,
    ...(typeof description === 'string' ? { description } : {}),
    schema: rest,
  }
}

/** Path parameters in the order of `path` (`/sites/{id}`), then query parameters. */
function parameters(route: RouteDefinition, path: string, components: JsonObject): JsonObject[] {
  const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '')
  const declared: Record<string, TSchema> = route.params?.properties ?? {}
  const stray = Object.keys(declared).filter((name) => !inPath.includes(name))
  if (stray.length > 0)
    throw new Error(
      `Route ${route.method} ${path} declares path parameters not in its path: ${stray.join(', ')}`,
    )
  const list = inPath.map((name) => parameter(name, 'path', true, declared[name], components))
  const required = new Set(route.query?.required ?? [])
  const query: Record<string, TSchema> = { ...route.query?.properties, ...(route.list ? pageQuery : {}) }
  for (const [name, schema] of Object.entries(query))
    list.push(parameter(name, 'query', required.has(name), schema, components))
  // A route answering its own preconditions declares the headers it reads (`requestHeaders`).
  if (taggedRead(route) && !route.ownPreconditions)
    list.push({
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description:
        'The `ETag` of the copy the client holds: answered 304 without a body while it is current.',
      schema: { type: 'string', maxLength: 1024 },
    })
  const changes = route.method === 'PATCH' || route.method === 'PUT' || route.method === 'DELETE'
  if (route.params && changes && !route.ownPreconditions)
    list.push({
      name: 'If-Match',
      in: 'header',
      required: false,
      description:
        'The `ETag` of the resource as the client last read it: the change is made only if it is still current, else 412 `precondition_failed` and nothing changes.',
      schema: { type: 'string', maxLength: 1024 },
    })
  for (const [name, declared] of Object.entries(route.requestHeaders ?? {})) {
    const schema = declared.schema
      ? schemaRef(declared.schema, components)
      : { type: 'string', maxLength: 1024 }
    list.push({
      name,
      in: 'header',
      required: declared.required ?? false,
      description: declared.description,
      schema,
    })
  }
  if (route.idempotent) {
    list.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Makes the request safe to retry: the same request with the same key within 24 hours gets the first answer (with `Idempotent-Replayed: true`) and creates nothing. 1 to 255 printable ASCII characters, scoped to the caller.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
    })
  }
  return list
}

/**
 * Whether `route` is a read whose 200 the kernel tags (`ETag`, 304 for `If-None-Match`): a single-resource GET,
 * whatever its media type, unless it streams (`text/event-stream`).
 */
function taggedRead(route: RouteDefinition): boolean {
  const streamed = route.responses?.[200]?.contentType?.startsWith('text/event-stream') ?? false
  return route.method === 'GET' && !route.list && !streamed
}

/** The success responses of `route`: a list's page, or what it declares. */
function successResponses(route: RouteDefinition): Readonly<Record<string, RouteResponse>> {
  if (!route.list) return route.responses ?? {}
  const name = (route.list.item as { $id?: string }).$id
  if (!name) throw new Error(`List route ${route.method} ${route.path}: its item schema needs an $id`)
  return {
    200: { description: `A page of ${name} items.`, schema: pageOf(route.list.item, `${name}Page`) },
    ...route.responses,
  }
}

/** The OpenAPI operation object of `route`, mounted at `path` (`/api/v1/sites/{id}`), of plugin `tag`. */
export function operationOf(
  route: RouteDefinition,
  tag: string,
  path: string,
  components: JsonObject,
): JsonObject {
  const responses: Record<string, JsonObject> = {}
  for (const [status, response] of Object.entries(successResponses(route))) {
    const declared = Object.fromEntries(
      Object.entries(response.headers ?? {}).map(([name, description]) => [
        name,
        name in responseHeaders ? header(name) : { description, schema: { type: 'string' } },
      ]),
    )
    const tagged = status === '200' && taggedRead(route)
    responses[status] = {
      description: response.description,
      headers: {
        ...commonHeaders(route),
        ...(tagged ? { ETag: header('ETag') } : {}),
        ...(route.showsSecret ? { 'Cache-Control': header('Cache-Control') } : {}),
        ...declared,
      },
      ...(response.schema || response.contentType
        ? {
            content: {
              [response.contentType ?? 'application/json']: {
                schema: response.schema ? schemaRef(response.schema, components) : { type: 'string' },
              },
              // The same answer in other media types the client may ask for with `Accept`.
              ...Object.fromEntries(
                Object.entries(response.alternatives ?? {}).map(([type, alternative]) => [
                  type,
                  {
                    schema: alternative.schema
                      ? schemaRef(alternative.schema, components)
                      : { type: 'string' },
                  },
                ]),
              ),
            },
          }
        : {}),
    }
  }
  // A route with its own preconditions declares its 304 (and its tags) itself.
  if (taggedRead(route) && !route.ownPreconditions)
    responses['304'] = {
      description: 'Not Modified: the copy named in `If-None-Match` is current.',
      headers: { 'X-Request-Id': header('X-Request-Id'), ...rateLimitHeaders(route), ETag: header('ETag') },
    }
  const params = parameters(route, path, components)
  return {
    operationId: route.operationId,
    summary: route.summary,
    description:
      (route.description ? `${route.description}\n\n` : '') +
      (route.credential
        ? `Authenticated with \`${route.credential.name}\`, not with an API token or a session.`
        : route.public
          ? 'Public: no credentials needed.'
          : route.scope
            ? `Needs scope \`${route.scope}\`.`
            : 'Open to any signed-in caller or token.'),
    tags: [tag],
    security: route.credential
      ? [{ [route.credential.name]: [] }]
      : route.public
        ? []
        : [{ apiToken: route.scope ? [route.scope] : [] }, { session: route.scope ? [route.scope] : [] }],
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: !acceptsEmptyBody(route.body),
            content: { 'application/json': { schema: schemaRef(closeObjects(route.body), components) } },
          },
        }
      : route.rawBody
        ? {
            requestBody: {
              required: true,
              description: route.rawBody.description,
              content: {
                [route.rawBody.contentType ?? 'application/octet-stream']: {
                  schema: {
                    type: 'string',
                    contentMediaType: route.rawBody.contentType ?? 'application/octet-stream',
                  },
                },
              },
            },
          }
        : {}),
    responses: { ...responses, ...problemResponses(route) },
  }
}
