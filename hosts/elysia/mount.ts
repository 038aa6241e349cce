// Embedding in an existing Elysia app: the panel answers under a prefix, the app keeps everything else.

import type { AnyElysia } from 'elysia'
import type { Panel } from '../../core/host.ts'

/**
 * The panel's `Location` headers are its own paths (`/api/v1/sites/…`); seen from the app they live under the
 * prefix, so it is put back on the way out.
 */
function underPrefix(response: Response, base: string): Response {
  const location = response.headers.get('location')
  if (!base || !location?.startsWith('/') || location.startsWith('//')) return response
  const headers = new Headers(response.headers)
  headers.set('location', `${base}${location}`)
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
}

/**
 * Mounts `panel` under `prefix` (`/panel` → `/panel/api/v1/...`). Elysia strips the prefix before the panel
 * sees the request, so the panel's own paths are unchanged; `Location` headers get the prefix back. Elysia's
 * mount passes only the Request, so the client address is unknown here: logins are throttled per account and
 * audit entries carry no address (serve the panel with hosts/bun for both).
 * @example mountPanel(new Elysia().get('/', () => 'shop'), panel, '/panel').listen(3000)
 */
export function mountPanel<App extends AnyElysia>(app: App, panel: Panel, prefix: string): App {
  // Elysia matches the mount under the app's own prefix too (`new Elysia({ prefix: '/shop' })`).
  const base = `${app.config.prefix ?? ''}${prefix}`.replace(/\/+$/, '')
  return app.mount(prefix, async (request: Request) => underPrefix(await panel.handle(request), base)) as App
}
