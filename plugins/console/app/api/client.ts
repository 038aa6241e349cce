// The app's one way to the API: a typed client generated from `/api/docs` (openapi-fetch on openapi-typescript's
// types), the session cookie, and the session's CSRF token on every change. Refusals become ApiProblem.

import createClient, { type Middleware } from 'openapi-fetch'
import { problemOf } from './problem.ts'
import type { components, paths } from './schema.d.ts'

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

const session: Middleware = {
  onRequest({ request }) {
    if (request.method !== 'GET' && request.method !== 'HEAD' && csrfToken)
      request.headers.set('X-CSRF-Token', csrfToken)
    return request
  },
  async onResponse({ response, request }) {
    if (response.status === 401 && !new URL(request.url).pathname.endsWith('/auth/login')) onSignedOut()
    return response
  },
}

// The types name `/api/v1/...`; a panel mounted under a path (`/panel/api/v1`) puts that path before them.
export const api = createClient<paths>({
  baseUrl: `${window.location.origin}${apiBase.slice(0, -'/api/v1'.length)}`,
  credentials: 'same-origin',
})
api.use(session)

/** The data of an answer, or throws its problem: `const site = await unwrap(api.GET(...))`. */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<NonNullable<T>> {
  const { data, error, response } = await call
  if (!response.ok) throw problemOf(response.status, error, response.headers.get('x-request-id'))
  return data as NonNullable<T>
}

/** A URL of the API for what the typed client cannot carry (EventSource, WebSocket, downloads). */
export function apiUrl(path: string): string {
  return `${window.location.origin}${apiBase}${path}`
}

/** Raw request with the session's CSRF token: for streamed uploads the typed client cannot send. */
export async function rawRequest(path: string, init: RequestInit): Promise<Response> {
  const headers = new Headers(init.headers)
  if (init.method && init.method !== 'GET' && csrfToken) headers.set('X-CSRF-Token', csrfToken)
  const response = await fetch(apiUrl(path), { ...init, headers, credentials: 'same-origin' })
  if (response.status === 401) onSignedOut()
  if (!response.ok) {
    const body = await response.json().catch(() => null)
    throw problemOf(response.status, body, response.headers.get('x-request-id'))
  }
  return response
}
