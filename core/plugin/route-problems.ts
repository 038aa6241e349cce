// Every refusal a route can answer: the kernel's for a route of its shape, and the route's own.

import type { TSchema } from '@sinclair/typebox'
import { formatProblem } from '../problem/formats.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import type { ProblemRef } from '../problem/problem-code.ts'
import type { RouteDefinition } from './route.ts'

/** Whether a route changes state (and so is audited, CSRF-checked and may be conditional). */
export function changesState(route: Pick<RouteDefinition, 'method'>): boolean {
  return route.method !== 'GET'
}

/** The refusals any route of this shape can answer, besides its own. */
export function implicitProblems(route: RouteDefinition): ProblemRef[] {
  const problems: ProblemRef[] = [kernelProblems.internal_error]
  if (route.credential) problems.push(kernelProblems.unauthenticated)
  if (!route.public) {
    problems.push(kernelProblems.unauthenticated, kernelProblems.invalid_token, kernelProblems.token_expired)
    problems.push(kernelProblems.session_expired, kernelProblems.account_disabled)
    if (route.scope) problems.push(kernelProblems.insufficient_scope)
    if (route.staff) problems.push(kernelProblems.staff_only)
    if (route.wildcardOnly) problems.push(kernelProblems.wildcard_token_required)
    if (changesState(route))
      problems.push(kernelProblems.csrf_token_invalid, kernelProblems.cross_origin_request)
  }
  if (route.params) problems.push(kernelProblems.not_found)
  // Every route validates its query, and one that declares none refuses unknown parameters.
  problems.push(kernelProblems.validation_failed)
  if (route.rateLimited !== false) problems.push(kernelProblems.rate_limited)
  if (route.list) problems.push(kernelProblems.invalid_cursor)
  if (
    route.params &&
    !route.ownPreconditions &&
    (route.method === 'PATCH' || route.method === 'PUT' || route.method === 'DELETE')
  )
    problems.push(kernelProblems.precondition_failed)
  if (route.idempotent) {
    problems.push(
      kernelProblems.invalid_idempotency_key,
      kernelProblems.idempotency_key_reused,
      kernelProblems.idempotency_request_in_flight,
    )
  }
  if (route.body) {
    problems.push(
      kernelProblems.malformed_json,
      kernelProblems.unsupported_media_type,
      kernelProblems.body_too_large,
    )
    problems.push(...formatProblemsOf(route.body))
  }
  if (route.rawBody) problems.push(kernelProblems.unsupported_media_type)
  if (route.change?.customer) problems.push(kernelProblems.unknown_customer, kernelProblems.customer_deleting)
  const counted = route.change?.usage
  if (counted && counted.delta > 0 && counted.metric.quota)
    problems.push(counted.metric.quota.problem, kernelProblems.customer_suspended)
  return problems
}

/** The refusals of the declared string formats a schema uses (`defineFormat`), at any depth. */
function formatProblemsOf(schema: TSchema): ProblemRef[] {
  const found: ProblemRef[] = []
  const walk = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return
    const problem = formatProblem((node as { format?: unknown }).format)
    if (problem) found.push(problem)
    for (const value of Object.values(node)) walk(value)
  }
  walk(schema)
  return found
}

/** Every refusal of `route`, each code once, the kernel's first. */
export function routeProblems(route: RouteDefinition): ProblemRef[] {
  const seen = new Map<string, ProblemRef>()
  for (const problem of [...implicitProblems(route), ...(route.problems ?? [])])
    if (!seen.has(problem.code)) seen.set(problem.code, problem)
  return [...seen.values()]
}
