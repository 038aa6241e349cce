// The app's way to the API: typed clients on types generated from `/api/docs` (openapi-fetch on openapi-typescript's
// types; the console's own, and one per plugin from its `console/schema.d.ts`), the session cookie, the session's
// CSRF token on every change, refusals as ApiProblem, and the cache kept up to date from the paths changes are made
// at (api/query-keys.ts).

import createClient, {
  type Client,
  type ClientPathsWithMethod,
  type FetchOptions,
  type MethodResponse,
  type Middleware,
} from 'openapi-fetch'
import { allPages } from './all-pages.ts'
import { problemOf } from './problem.ts'
import { queryClient } from './query-client.ts'
import {
  type ApiQueryKey,
  afterChange,
  apiKey,
  type KeyParams,
  segmentsOfTemplate,
  segmentsOfUrl,
} from './query-keys.ts'
import type { components, paths } from './schema.d.ts'

/** The schemas of the console's own operations (the kernel's, and the customers and brands its pickers read). */
export type Schemas = components['schemas']

/** Where the page says the API is (the panel writes it into a meta element), `/api/v1` by default. */
const apiBase = document.querySelector('meta[name="plinth-api-base"]')?.getAttribute('content') ?? '/api/v1'

let csrfToken: string | null = null
/** Remembers the session's CSRF token (from login, or `/me` after a reload). */
export function setCsrfToken(token: string | null): void {
  csrfToken = token
}

/** Called when the API says the session is gone (401), so the app can show the sign-in page. */
let onSignedOut: () => void = () => {}
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler
}

const isChange = (method: string) => method !== 'GET' && method !== 'HEAD'

/** After an accepted change, what its path touched is read again (or forgotten, when a DELETE removed it). */
function cacheFollows(method: string, url: string, response: Response): void {
  if (!isChange(method) || !response.ok) return
  const segments = segmentsOfUrl(new URL(url).pathname, apiBase)
  if (segments) void afterChange(queryClient, { method, segments, status: response.status })
}

/**
 * Reads again what a change touched beyond its own path, given as API paths: a brand's new theme is also the
 * public `/api/v1/branding`. A change through a client needs nothing of this for its own path.
 * @example touch('/api/v1/branding')
 */
export function touch(...paths: string[]): void {
  for (const path of paths)
    void afterChange(queryClient, { method: 'POST', segments: segmentsOfTemplate(path), status: 200 })
}

const session: Middleware = {
  onRequest({ request }) {
    if (isChange(request.method) && csrfToken) request.headers.set('X-CSRF-Token', csrfToken)
    return request
  },
  async onResponse({ response, request }) {
    if (response.status === 401 && !new URL(request.url).pathname.endsWith('/auth/login')) onSignedOut()
    cacheFollows(request.method, request.url, response)
    return response
  },
}

/** The data of an answer, or throws its problem: `const site = await unwrap(api.GET(...))`. */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<NonNullable<T>> {
  const { data, error, response } = await call
  if (!response.ok) throw problemOf(response.status, error, response.headers.get('x-request-id'))
  return data as NonNullable<T>
}

/** One page of a list, as every list of the API answers. */
export interface ListPage<T> {
  readonly items: readonly T[]
  readonly nextCursor?: string | null
}

/** A read for react-query: `useQuery(api.query(...))`, or `useQuery({ ...api.query(...), staleTime })`. */
export interface ApiQuery<T> {
  readonly queryKey: ApiQueryKey
  readonly queryFn: () => Promise<T>
}

/** A list read page by page for a {@link CursorTable}: its key and how to read the page after `cursor`. */
export interface ApiList<T> {
  readonly queryKey: ApiQueryKey
  load(cursor: string | undefined): Promise<ListPage<T>>
}

type Get<P extends {}> = ClientPathsWithMethod<Client<P>, 'get'>
type GetInit<P extends {}, Path extends Get<P>> = FetchOptions<P[Path] extends { get: infer O } ? O : never>
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T]
/** The init argument, required when the operation has required parameters (as the client's own methods). */
type InitArgs<Init> = RequiredKeys<Init> extends never ? [Init?] : [Init]
type Answer<P extends {}, Path extends Get<P>, Init> = MethodResponse<Client<P>, 'get', Path, Init>
type ItemOf<T> = T extends { readonly items: readonly (infer I)[] } ? I : never

/** A typed client: openapi-fetch's methods, and reads whose query keys come from their paths. */
export interface ApiClient<P extends {}> extends Client<P> {
  /** The answer of a GET, keyed by its path and parameters. */
  query<Path extends Get<P>, Init extends GetInit<P, Path>>(
    path: Path,
    ...init: InitArgs<Init>
  ): ApiQuery<Answer<P, Path, Init>>
  /** A list, page by page (of the API's default size unless the query gives `limit`), for a CursorTable. */
  list<Path extends Get<P>, Init extends GetInit<P, Path>>(
    path: Path,
    ...init: InitArgs<Init>
  ): ApiList<ItemOf<Answer<P, Path, Init>>>
  /** Every item of a list, page after page (at most 1000), for a select or names beside ids. */
  all<Path extends Get<P>, Init extends GetInit<P, Path>>(
    path: Path,
    ...init: InitArgs<Init>
  ): ApiQuery<ItemOf<Answer<P, Path, Init>>[]>
}

/** What a GET is given, as the reads below pass it on. */
type LooseInit = { params?: KeyParams & Record<string, unknown> } & Record<string, unknown>
type LooseGet = (
  path: string,
  init?: LooseInit,
) => Promise<{ data?: unknown; error?: unknown; response: Response }>

/** A page's query with a cursor and, unless the query gives one, the page size `limit` (none: the API's). */
const withCursor = (init: LooseInit | undefined, cursor: string | undefined, limit?: number): LooseInit => ({
  ...init,
  params: { ...init?.params, query: { ...(limit ? { limit } : {}), ...init?.params?.query, cursor } },
})

/**
 * A typed client for the operations of `P` (a plugin's `paths`, generated into its `console/schema.d.ts`), with the
 * session and the cache handled as for every page of the console.
 * @example export const api = createApi<paths>()
 */
export function createApi<P extends {}>(): ApiClient<P> {
  // The types name `/api/v1/...`; a panel mounted under a path (`/panel/api/v1`) puts that path before them.
  const client = createClient<P>({
    baseUrl: `${window.location.origin}${apiBase.slice(0, -'/api/v1'.length)}`,
    credentials: 'same-origin',
  })
  client.use(session)
  const get = client.GET as unknown as LooseGet
  const one = (path: string, init?: LooseInit) => unwrap(get(path, init))
  const page = (path: string, init: LooseInit | undefined, cursor: string | undefined, limit?: number) =>
    one(path, withCursor(init, cursor, limit)) as Promise<{ items: unknown[]; nextCursor?: string | null }>
  const reads = {
    query: (path: string, init?: LooseInit) => ({
      queryKey: apiKey(path, init?.params),
      queryFn: () => one(path, init),
    }),
    list: (path: string, init?: LooseInit) => ({
      queryKey: apiKey(path, init?.params, 'pages'),
      load: (cursor: string | undefined) => page(path, init, cursor),
    }),
    all: (path: string, init?: LooseInit) => ({
      queryKey: apiKey(path, init?.params, 'all'),
      queryFn: () => allPages((cursor) => page(path, init, cursor, 100)),
    }),
  }
  return Object.assign(client, reads) as unknown as ApiClient<P>
}

/** The console's client: the kernel's operations, and the customers and brands its pickers read. */
export const api = createApi<paths>()

/** A URL of the API for what the typed client cannot carry (EventSource, WebSocket, downloads). */
export function apiUrl(path: string): string {
  return `${window.location.origin}${apiBase}${path}`
}

/**
 * Raw request with the session's CSRF token: for streamed uploads the typed client cannot send. A change is followed
 * by the cache as the client's are, unless `readAgain` is false (a resumable upload's parts before the last, which
 * change nothing a page shows).
 */
export async function rawRequest(
  path: string,
  init: RequestInit,
  { readAgain = true }: { readonly readAgain?: boolean } = {},
): Promise<Response> {
  const headers = new Headers(init.headers)
  if (init.method && isChange(init.method) && csrfToken) headers.set('X-CSRF-Token', csrfToken)
  const url = apiUrl(path)
  const response = await fetch(url, { ...init, headers, credentials: 'same-origin' })
  if (response.status === 401) onSignedOut()
  if (!response.ok) {
    const body = await response.json().catch(() => null)
    throw problemOf(response.status, body, response.headers.get('x-request-id'))
  }
  if (readAgain) cacheFollows(init.method ?? 'GET', url, response)
  return response
}
