// The one error type every refusal is thrown as; rendered as RFC 9457 application/problem+json.

import type { ProblemRef } from './problem-code.ts'
import { statusTitle } from './status-titles.ts'

/** One failure among several, as in a 422's `errors[]`. */
export interface ProblemItem {
  /** Where: `body.limits.diskMB`, `query.limit`, `header.Idempotency-Key`. */
  readonly location: string
  readonly message: string
  /** Stable machine-readable reason (`required`, `out_of_range`, `unknown_site_type`, ...). */
  readonly code: string
}

export interface ProblemOptions {
  /** Overrides the catalogue's default detail. */
  readonly detail?: string
  readonly errors?: readonly ProblemItem[]
  /**
   * Extra members of the problem object (`scope`, `retryAfter`, `currentStatus`, ...). They can never replace a
   * member RFC 9457 or Plinth defines (`type`, `title`, `status`, `detail`, `instance`, `code`, `errors`,
   * `requestId`): naming one throws, so a refusal never answers `"status": "suspended"` beside a 409.
   */
  readonly extensions?: Readonly<Record<string, unknown>>
  /** Extra response headers (`WWW-Authenticate`, `Allow`, `Retry-After`, ...). */
  readonly headers?: Readonly<Record<string, string>>
}

/** The media type of every error body. */
export const problemMediaType = 'application/problem+json'

/** Members every problem object has or may have; extensions take other names. */
const reservedMembers = new Set([
  'type',
  'title',
  'status',
  'detail',
  'instance',
  'code',
  'errors',
  'requestId',
])

/**
 * A refusal with a status, a stable code and a readable detail.
 * @example throw new Problem(sitesProblems.unknown_site_type, { errors: [{ location: 'body.type', ... }] })
 */
export class Problem extends Error {
  readonly status: number
  readonly code: string
  readonly detail: string
  readonly errors: readonly ProblemItem[] | undefined
  readonly extensions: Readonly<Record<string, unknown>>
  readonly headers: Readonly<Record<string, string>>

  constructor(ref: ProblemRef, options: ProblemOptions = {}) {
    super(options.detail ?? ref.detail)
    this.name = 'Problem'
    this.status = ref.status
    this.code = ref.code
    this.detail = options.detail ?? ref.detail
    this.errors = options.errors
    this.extensions = options.extensions ?? {}
    for (const name of Object.keys(this.extensions)) {
      if (reservedMembers.has(name))
        throw new Error(`Problem ${ref.code}: the extension "${name}" would replace a standard member`)
    }
    this.headers = options.headers ?? {}
  }

  /** The problem object, as serialised. `requestId` ties it to the server's logs. */
  toJSON(requestId?: string): Record<string, unknown> {
    // Standard members last: whatever an extension holds, they are the ones serialised.
    return {
      ...this.extensions,
      type: 'about:blank',
      title: statusTitle(this.status),
      status: this.status,
      detail: this.detail,
      code: this.code,
      ...(this.errors ? { errors: this.errors } : {}),
      ...(requestId ? { requestId } : {}),
    }
  }

  /** The HTTP response: problem+json body, status, and this problem's headers. */
  toResponse(requestId?: string): Response {
    return new Response(JSON.stringify(this.toJSON(requestId)), {
      status: this.status,
      headers: {
        'content-type': problemMediaType,
        ...this.headers,
        ...(requestId ? { 'x-request-id': requestId } : {}),
      },
    })
  }
}

/** A 422 for one field, the common shape of a domain refusal (`unknown_customer` at `body.customerId`). */
export function fieldProblem(ref: ProblemRef, location: string, message: string = ref.detail): Problem {
  return new Problem(ref, { detail: message, errors: [{ location, message, code: ref.code }] })
}
