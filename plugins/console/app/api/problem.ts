// Refusals as the API sends them (RFC 9457 problem+json), and where each belongs in a form.

/** One item of a 422's `errors`: `location` names the field (`body.limits.diskMB`, `query.limit`). */
export interface ProblemItem {
  readonly location: string
  readonly message: string
  readonly code?: string
}

/** A refused request: its status, stable `code`, the server's words, and field errors when it has them. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly detail: string | null,
    readonly errors: readonly ProblemItem[],
    readonly requestId: string | null,
    /** Members beyond RFC 9457's and ours (a partial delete's `removed`, a quota's `quotaBytes`). */
    readonly extensions: Readonly<Record<string, unknown>> = {},
  ) {
    super(detail ?? title)
    this.name = 'ApiProblem'
  }

  /**
   * The message for a field (`name`, `limits.diskMB`): an error at `body.<field>`, or inside it (`body.hostnames.2`
   * shows at the `hostnames` field, naming the item); null when none.
   */
  fieldMessage(field: string): string | null {
    const location = `body.${field}`
    const exact = this.errors.find((item) => item.location === location)
    if (exact) return exact.message
    const inside = this.errors.find((item) => item.location.startsWith(`${location}.`))
    return inside ? `${inside.location.slice(location.length + 1)}: ${inside.message}` : null
  }

  /** Field errors no field of the form shows (so the banner lists them rather than losing them). */
  unplacedErrors(fields: readonly string[]): ProblemItem[] {
    const locations = fields.map((field) => `body.${field}`)
    return this.errors.filter(
      (item) =>
        !locations.some((location) => item.location === location || item.location.startsWith(`${location}.`)),
    )
  }
}

/** Turns an answer's body into an {@link ApiProblem}; a body that is not problem+json still makes one. */
export function problemOf(status: number, body: unknown, requestId: string | null): ApiProblem {
  const value = (body ?? {}) as Record<string, unknown>
  const text = (key: string) => (typeof value[key] === 'string' ? (value[key] as string) : null)
  const errors = Array.isArray(value.errors)
    ? (value.errors as unknown[]).flatMap((item) => {
        const entry = item as Record<string, unknown>
        return typeof entry.location === 'string' && typeof entry.message === 'string'
          ? [
              {
                location: entry.location,
                message: entry.message,
                ...(typeof entry.code === 'string' ? { code: entry.code } : {}),
              },
            ]
          : []
      })
    : []
  const standard = new Set(['type', 'title', 'status', 'detail', 'instance', 'code', 'errors', 'requestId'])
  const extensions = Object.fromEntries(Object.entries(value).filter(([key]) => !standard.has(key)))
  return new ApiProblem(
    status,
    text('code') ?? `http_${status}`,
    text('title') ?? `The request failed (${status})`,
    text('detail'),
    errors,
    text('requestId') ?? requestId,
    extensions,
  )
}
