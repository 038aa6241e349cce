// Renders whatever went wrong as problem+json: our own Problems as they are, anything unexpected as a 500 that
// names nothing internal (the log has it, under the request id).

import type { LogFields, Logger } from '../plugin/define-plugin.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'

/**
 * The response for an error thrown while handling a request. Unexpected errors are logged (with the request id the
 * client sees, and `where`: the operation), never shown.
 */
export function errorResponse(
  error: unknown,
  requestId: string,
  log: Logger,
  where: LogFields = {},
): Response {
  if (error instanceof Problem) return error.toResponse(requestId)
  log.error({ requestId, ...where, err: error }, 'request failed')
  return new Problem(kernelProblems.internal_error).toResponse(requestId)
}
