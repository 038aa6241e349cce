// The second stage: what a request says, read and checked against the route's schemas before its handler runs. A
// malformed path id is 404; a faulty query or body is 422 listing every field at fault.

import { type TObject, type TSchema, Type } from '@sinclair/typebox'
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler'
import { pageQuery } from '../pagination/paginate.ts'
import type { RouteDefinition } from '../plugin/route.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem, type ProblemItem } from '../problem/problem.ts'
import type { ProblemRef } from '../problem/problem-code.ts'
import { validationItems } from '../problem/validation-errors.ts'
import { queryReader } from './query-string.ts'
import { acceptsEmptyBody, readJsonBody, requireMediaType } from './request-body.ts'
import type { RouteUnderway } from './route-runtime.ts'
import { closeObjects } from './schema-strictness.ts'
import { unstorableQueryItems, unstorableTextItems } from './text-safety.ts'
import { trimText } from './trim-text.ts'

/** A request's input as its handler receives it (a list's `cursor` and `limit` set apart from its filters). */
export interface RouteInput {
  readonly params: Record<string, string>
  /** The query as checked; on a list route its filters only. */
  readonly query: Record<string, unknown>
  readonly body: unknown
  /** What the route's own credential authenticated (checked by the gate, before the request is read). */
  readonly principal: unknown
  /** A list's page: the cursor sent, and how many items. */
  readonly page: { readonly cursor: string | undefined; readonly limit: number | undefined }
}

function compile(schema: TObject | undefined): TypeCheck<TSchema> | undefined {
  return schema ? TypeCompiler.Compile(closeObjects(schema)) : undefined
}

/**
 * The 422 of failed fields: `validation_failed` listing each; one failure of a plugin's declared format keeps its
 * own code, as a handler's single field refusal does.
 */
function invalid(
  errors: readonly ProblemItem[],
  prefix: 'body' | 'query',
  refs?: ReadonlyMap<string, ProblemRef>,
): Problem {
  const [only] = errors
  const own = errors.length === 1 && only ? refs?.get(only.code) : undefined
  if (own && only) return new Problem(own, { detail: only.message, errors })
  const count = errors.length
  return new Problem(kernelProblems.validation_failed, {
    detail: `The request ${prefix} has ${count} invalid field${count === 1 ? '' : 's'}.`,
    errors,
  })
}

/** The query schema a route's request is read with: a list's filters plus `cursor` and `limit`. */
function querySchemaOf(route: RouteDefinition): TObject {
  // A route without query parameters still refuses unknown ones: a misspelt filter must not silently widen a list.
  const declared = route.query ?? Type.Object({})
  if (!route.list) return declared
  return Type.Object({ ...declared.properties, ...pageQuery })
}

/** Reads the input of one route's requests; `refs` are the route's problems, by code. */
export function inputReader(
  { route, runtime }: RouteUnderway,
  refs: ReadonlyMap<string, ProblemRef>,
): (request: Request, rawParams: Record<string, string>, principal: unknown) => Promise<RouteInput> {
  const params = compile(route.params)
  const querySchema = querySchemaOf(route)
  const query = TypeCompiler.Compile(closeObjects(querySchema))
  const readQuery = queryReader(querySchema)
  // Most requests send no query: their input is the defaults, checked once here instead of on every request.
  const queryDefaults = readQuery('')
  const defaultsValid = query.Check(queryDefaults)
  const body = compile(route.body)
  // With every field optional, no body at all is `{}`.
  const emptyBodyAllowed = route.body !== undefined && acceptsEmptyBody(route.body)

  /** The request's query as its schema reads it, or the 422 of what is wrong with it. */
  function queryOf(href: string): Record<string, unknown> {
    if (defaultsValid && !href.includes('?')) return { ...queryDefaults }
    const unstorable = unstorableQueryItems(href)
    if (unstorable.length > 0) throw invalid(unstorable, 'query')
    const queryInput = readQuery(href)
    if (!query.Check(queryInput)) throw invalid(validationItems(query, queryInput, 'query'), 'query')
    return queryInput
  }

  /** The JSON body, checked (every faulty field in one 422) and its text trimmed as the schema says. */
  async function bodyOf(request: Request): Promise<unknown> {
    if (!body) return undefined
    const bodyInput =
      (await readJsonBody(request, route.bodyLimitBytes ?? runtime.bodyLimitBytes)) ??
      (emptyBodyAllowed ? {} : undefined)
    if (bodyInput === undefined) {
      throw new Problem(kernelProblems.validation_failed, {
        detail: 'This operation needs a JSON body.',
        errors: [{ location: 'body', message: 'is required', code: 'required' }],
      })
    }
    const refused = [...unstorableTextItems(bodyInput, 'body')]
    if (!body.Check(bodyInput)) {
      const seen = new Set(refused.map((item) => item.location))
      refused.push(...validationItems(body, bodyInput, 'body').filter((item) => !seen.has(item.location)))
    }
    if (refused.length > 0) throw invalid(refused.slice(0, 50), 'body', refs)
    return route.body ? trimText(route.body, bodyInput) : bodyInput
  }

  return async (request, rawParams, principal) => {
    // A path parameter that cannot name anything (a malformed id) is a missing resource, not a bad request.
    if (params && !params.Check(rawParams)) throw new Problem(kernelProblems.not_found)
    const queryInput = queryOf(request.url)
    if (route.rawBody) requireMediaType(request, route.rawBody.contentType ?? 'application/octet-stream')
    const bodyInput = await bodyOf(request)
    if (!route.list) {
      const page = { cursor: undefined, limit: undefined }
      return { params: rawParams, query: queryInput, body: bodyInput, principal, page }
    }
    const { cursor, limit, ...filters } = queryInput as { cursor?: string; limit?: number }
    return { params: rawParams, query: filters, body: bodyInput, principal, page: { cursor, limit } }
  }
}
