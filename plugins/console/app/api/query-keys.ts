// Query keys made from the API's paths, and what a change makes stale, from the path it was made at. An answer of
// `GET /api/v1/sites/site_1?status=active` is cached under `['api', 'sites', 'site_1', { query, shape }]`; a change
// at `/sites/site_1/suspend` makes stale the answers at that path and below it, and those of the paths above it (the
// site, the list of sites), whatever their query. So no page writes a key or says by hand what to read again.

import type { QueryClient, QueryKey } from '@tanstack/react-query'

/** What tells apart answers of one path: its query, and how it was read (one page, every page, pages one by one). */
export interface ApiKeyTail {
  readonly query: Readonly<Record<string, unknown>>
  readonly shape: 'one' | 'all' | 'pages'
}

/** The key of an answer of the API: `'api'`, the path's segments with its parameters filled in, then its tail. */
export type ApiQueryKey = readonly ['api', ...string[], ApiKeyTail]

/** What `params` of the typed client carry that a key is made of. */
export interface KeyParams {
  readonly path?: Readonly<Record<string, unknown>>
  readonly query?: Readonly<Record<string, unknown>>
}

/** The API's version prefix, which every path of the generated types starts with. */
const versionPrefix = '/api/v1'

/** The segments of a path template (`/api/v1/sites/{id}`) with its parameters filled in (`['sites', 'site_1']`). */
export function segmentsOfTemplate(template: string, path: Readonly<Record<string, unknown>> = {}): string[] {
  const relative = template.startsWith(versionPrefix) ? template.slice(versionPrefix.length) : template
  return relative
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      const name = /^\{(.+)\}$/.exec(segment)?.[1]
      if (name === undefined) return segment
      const value = path[name]
      if (value === undefined) throw new Error(`apiKey: ${template} needs the path parameter ${name}`)
      return String(value)
    })
}

/** A query without its undefined members (a filter left empty is no filter) and without the cursor of a page. */
function queryOf(query: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  const kept: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(query))
    if (value !== undefined && name !== 'cursor') kept[name] = value
  return kept
}

/**
 * The key of an answer of `template` with `params`.
 * @example apiKey('/api/v1/sites/{id}', { path: { id } }) // ['api', 'sites', id, { query: {}, shape: 'one' }]
 */
export function apiKey(
  template: string,
  params: KeyParams = {},
  shape: ApiKeyTail['shape'] = 'one',
): ApiQueryKey {
  return ['api', ...segmentsOfTemplate(template, params.path), { query: queryOf(params.query), shape }]
}

/** The path segments of an API key; null for a key not made by {@link apiKey}. */
export function segmentsOfKey(key: QueryKey): readonly string[] | null {
  if (key[0] !== 'api' || key.length < 2) return null
  const segments = key.slice(1, -1)
  return segments.every((segment) => typeof segment === 'string') ? (segments as string[]) : null
}

/** The segments of a request's URL path below the API's base (`/panel/api/v1/sites/x` → `['sites', 'x']`). */
export function segmentsOfUrl(pathname: string, apiBase: string): readonly string[] | null {
  if (!pathname.startsWith(`${apiBase}/`)) return null
  return pathname
    .slice(apiBase.length)
    .split('/')
    .filter(Boolean)
    .map((segment) => decodeURIComponent(segment))
}

const startsWith = (whole: readonly string[], start: readonly string[]) =>
  start.length <= whole.length && start.every((segment, index) => whole[index] === segment)

/**
 * Whether a change at `changed` makes the answer under `key` stale: an answer at that path or below it (what it
 * holds), or at a path above it (the lists and the resource that show it).
 */
export function isTouchedBy(changed: readonly string[], key: QueryKey): boolean {
  const segments = segmentsOfKey(key)
  return segments !== null && (startsWith(segments, changed) || startsWith(changed, segments))
}

/** Whether the answer under `key` is at `gone` or below it. */
export function isUnder(gone: readonly string[], key: QueryKey): boolean {
  const segments = segmentsOfKey(key)
  return segments !== null && startsWith(segments, gone)
}

/**
 * Brings the cache up to date after a change at `segments` that the API accepted: what the path held is read again,
 * or forgotten when a DELETE removed it at once (204; read again, it would be a 404; a 202 leaves it there, being
 * removed), and what is above it is read again.
 */
export function afterChange(
  queries: QueryClient,
  change: { readonly method: string; readonly segments: readonly string[]; readonly status: number },
): Promise<void> {
  const { method, segments, status } = change
  if (method === 'DELETE' && status === 204) {
    queries.removeQueries({ predicate: (query) => isUnder(segments, query.queryKey) })
  }
  return queries.invalidateQueries({ predicate: (query) => isTouchedBy(segments, query.queryKey) })
}
