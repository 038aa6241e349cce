// What the Logs tab asks for, as the query string of `GET /sites/{id}/logs/{kind}`: only what is set.

/** The logs a site has, as the tab names them. */
export const logKinds = [
  { kind: 'access', label: 'Access' },
  { kind: 'error', label: 'Error' },
  { kind: 'php', label: 'PHP' },
] as const
export type LogKind = (typeof logKinds)[number]['kind']

/** The filters as typed. */
export interface LogFilters {
  readonly lines: string
  /** ISO 8601 UTC, or empty. */
  readonly since: string
  readonly status: string
  readonly search: string
}

export const noFilters: LogFilters = { lines: '100', since: '', status: '', search: '' }

/** The query of `filters` for `kind`: empty fields left out, `status` for the access log only. */
export function logQuery(kind: LogKind, filters: LogFilters): Record<string, string> {
  const query: Record<string, string> = {}
  if (filters.lines.trim()) query.lines = filters.lines.trim()
  if (filters.since) query.since = filters.since
  if (kind === 'access' && filters.status.trim()) query.status = filters.status.trim()
  if (filters.search.trim()) query.search = filters.search.trim()
  return query
}

/** The class a status's row is shown with: `ok` (1xx–3xx), `client` (4xx), `server` (5xx). */
export const statusClass = (status: number) => (status >= 500 ? 'server' : status >= 400 ? 'client' : 'ok')

/** What an `end` event's reason says to a person. */
export const endText: Readonly<Record<string, string>> = {
  site_deleted: 'The site was deleted: following stopped.',
  site_suspended: 'The site was suspended: following stopped.',
  access_revoked: 'You may no longer read this site’s logs: following stopped.',
  logs_unavailable: 'The site’s node stopped answering: following stopped.',
  time_limit: 'Following stopped after an hour: turn it on again to go on.',
}
