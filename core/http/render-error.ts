// Renders whatever went wrong as problem+json: our own Problems as they are, anything unexpected as a 500 that
// names nothing internal (the log has it, under the request id).

import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'

/** The response for an error thrown while handling a request. Unexpected errors are logged, never shown. */
export function errorResponse(error: unknown, requestId: string): Response {
  if (error instanceof Problem) return error.toResponse(requestId)
  console.error(`[plinth] request ${requestId} failed:`, error)
  return new Problem(kernelProblems.internal_error).toResponse(requestId)
}
