// The OpenAPI operation of one route, written from its declaration: schemas, scope, and every problem it can answer.

import type { TObject, TSchema } from '@sinclair/typebox'
import { closeObjects } from '../http/schema-strictness.ts'
import type { RouteDefinition } from '../plugin/route.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import type { ProblemRef } from '../problem/problem-code.ts'
import { statusTitle } from '../problem/status-titles.ts'

type JsonObject = Record<string, unknown>

/** A JSON copy of a TypeBox schema; named ones (`$id`) are moved to components and referenced. */
export function schemaRef(schema: TSchema, components: JsonObject): JsonObject {
  const plain = JSON.parse(JSON.stringify(schema)) as JsonObject
  const id = plain.$id
  if (typeof id !== 'string') return plain
  delete plain.$id
  components[id] = plain
  return { $ref: `#/components/schemas/${id}` }
}

/** The refusals any route of this shape can answer, besides its own. */
function problemsOf(route: RouteDefinition): ProblemRef[] {
  const problems: ProblemRef[] = [kernelProblems.internal_error]
  if (!route.public) {
    problems.push(kernelProblems.unauthenticated, kernelProblems.invalid_token, kernelProblems.token_expired)
    problems.push(kernelProblems.insufficient_scope)
    if (route.staff) problems.push(kernelProblems.staff_only)
  }
  if (route.params) problems.push(kernelProblems.not_found)
  if (route.body || route.query) problems.push(kernelProblems.validation_failed)
  if (route.body)
    problems.push(
      kernelProblems.malformed_json,
      kernelProblems.unsupported_media_type,
      kernelProblems.body_too_large,
    )
  return [...problems, ...(route.problems ?? [])]
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
    const headers =
      status === 401
        ? { 'WWW-Authenticate': { description: 'The Bearer challenge.', schema: { type: 'string' } } }
        : undefined
    responses[String(status)] = {
      description: `${statusTitle(status)}: ${codes}.`,
      ...(headers ? { headers } : {}),
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    }
  }
  return responses
}

function parameters(route: RouteDefinition, components: JsonObject): JsonObject[] {
  const list: JsonObject[] = []
  const add = (schema: TObject | undefined, location: 'path' | 'query') => {
    if (!schema) return
    const required = new Set(schema.required ?? [])
    for (const [name, property] of Object.entries(schema.properties)) {
      const plain = schemaRef(property, components)
      const description = plain.description
      list.push({
        name,
        in: location,
        required: location === 'path' || required.has(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: plain,
      })
    }
  }
  add(route.params, 'path')
  add(route.query, 'query')
  return list
}

/** The OpenAPI operation object of `route`, which belongs to plugin `tag`. */
export function operationOf(route: RouteDefinition, tag: string, components: JsonObject): JsonObject {
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
  const params = parameters(route, components)
  return {
    operationId: route.operationId,
    summary: route.summary,
    description:
      (route.description ? `${route.description}\n\n` : '') +
      (route.public ? 'Public: no credentials needed.' : `Needs scope \`${route.scope}\`.`),
    tags: [tag],
    security: route.public ? [] : [{ apiToken: [route.scope] }],
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
