// Assertions on problem+json refusals, shared by the HTTP tests: status, media type and code in one call.

import { expect } from 'bun:test'
import { statusTitles } from '../problem/status-titles.ts'

/** The parts of a problem body the tests read: `scope` on insufficient_scope, `errors` on field refusals. */
export interface ProblemBody {
  readonly code: string
  readonly title: string
  readonly detail?: string
  readonly requestId: string
  readonly scope?: string
  readonly retryAfter?: number
  readonly errors?: readonly { location: string; code: string }[]
  /** What keeps a resource from being deleted (409 `<noun>_in_use`). */
  readonly blockers?: readonly { name: string; count: number }[]
}

/** Asserts that `response` is an `application/problem+json` refusal with this status and code; answers its body. */
export async function expectProblem(response: Response, status: number, code: string): Promise<ProblemBody> {
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toBe('application/problem+json')
  const body = (await response.json()) as ProblemBody
  expect(body.code).toBe(code)
  // The title is the status's registered reason phrase (412, 416, 426 and 502 once said "Client Error").
  expect(statusTitles[status]).toBeDefined()
  expect(body.title).toBe(statusTitles[status] ?? '')
  return body
}

/**
 * A one-field refusal: {@link expectProblem}, then exactly one `errors[]` item, at `location` with `fieldCode`
 * (by default the problem's own `code`).
 */
export async function expectFieldProblem(
  response: Response,
  status: number,
  code: string,
  location: string,
  fieldCode: string = code,
): Promise<void> {
  const body = await expectProblem(response, status, code)
  expect(body.errors).toEqual([expect.objectContaining({ location, code: fieldCode })])
}
