// The OpenAPI operation of one route, written from its declaration: schemas, scope, and every problem it can answer.

import { isDeepStrictEqual } from 'node:util'
import type { TSchema } from '@sinclair/typebox'
import { closeObjects } from '../http/schema-strictness.ts'
import type { RouteDefinition } from '../plugin/route.ts'
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

/** The refusals any route of this shape can answer, besides its own. */
function problemsOf(route: RouteDefinition): ProblemRef[] {
  const problems: ProblemRef[] = [kernelProblems.internal_error]
  if (!route.public) {
    problems.push(kernelProblems.unauthenticated, kernelProblems.invalid_token, kernelProblems.token_expired)
    problems.push(kernelProblems.session_expired)
    if (route.scope) problems.push(kernelProblems.insufficient_scope)
    if (route.staff) problems.push(kernelProblems.staff_only)
    if (route.wildcardOnly) problems.push(kernelProblems.wildcard_token_required)
    if (route.method !== 'GET')
      problems.push(kernelProblems.csrf_token_invalid, kernelProblems.cross_origin_request)
  }
  if (route.params) problems.push(kernelProblems.not_found)
  // Every route validates its query, and one that declares none refuses unknown parameters.
  problems.push(kernelProblems.validation_failed)
  if (!route.public || route.strictRateLimit) problems.push(kernelProblems.rate_limited)
  if (route.idempotent) {
    problems.push(
      kernelProblems.invalid_idempotency_key,
      kernelProblems.idempotency_key_reused,
      kernelProblems.idempotency_request_in_flight,
    )
  }
  if (route.body)
    problems.push(
      kernelProblems.malformed_json,
      kernelProblems.unsupported_media_type,
      kernelProblems.body_too_large,
    )
  return [...problems, ...(route.problems ?? [])]
}

/** Headers a problem response of `status` carries, by the codes it lists. */
function problemHeaders(status: number, problems: readonly ProblemRef[]): JsonObject | undefined {
  const challenge = (description: string) => ({
    'WWW-Authenticate': { description, schema: { type: 'string' } },
  })
  if (status === 401) return challenge('The Bearer challenge.')
  if (problems.some((problem) => problem.code === kernelProblems.insufficient_scope.code))
    return challenge('With `insufficient_scope`: the Bearer challenge naming the scope needed.')
  return undefined
}

function problemResponses(route: RouteDefinition): Record<string, JsonObject> {
  const byStatus = new Map<number, ProblemRef[]>()
  for (const problem of problemsOf(route)) {
    const list = byStatus.get(problem.status) ?? []
    if (!list.some((known) => known.code === problem.code)) list.push(problem)
    byStatus.set(problem.status, list)
  }
  const responses: Record<string, JsonObject> = {}
  for (const [status, problems] of [...byStatus].sort(([a], [b]) => a - b)) {
    const codes = problems.map((problem) => `\`${problem.code}\``).join(', ')
    const headers = problemHeaders(status, problems)
    responses[String(status)] = {
      description: `${statusTitle(status)}: ${codes}.`,
      ...(headers ? { headers } : {}),
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
  for (const [name, schema] of Object.entries(route.query?.properties ?? {}))
    list.push(parameter(name, 'query', required.has(name), schema, components))
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

/** The OpenAPI operation object of `route`, mounted at `path` (`/api/v1/sites/{id}`), of plugin `tag`. */
export function operationOf(
  route: RouteDefinition,
  tag: string,
  path: string,
  components: JsonObject,
): JsonObject {
  const responses: Record<string, JsonObject> = {}
  for (const [status, response] of Object.entries(route.responses)) {
    responses[status] = {
      description: response.description,
      ...(response.headers
        ? {
            headers: Object.fromEntries(
              Object.entries(response.headers).map(([name, description]) => [
                name,
                { description, schema: { type: 'string' } },
              ]),
            ),
          }
        : {}),
      ...(response.schema
        ? { content: { 'application/json': { schema: schemaRef(response.schema, components) } } }
        : {}),
    }
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
            required: true,
            content: { 'application/json': { schema: schemaRef(closeObjects(route.body), components) } },
          },
        }
      : {}),
    responses: { ...responses, ...problemResponses(route) },
  }
}
