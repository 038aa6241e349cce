// Embedding in an existing Elysia app: the panel answers under a prefix, the app keeps everything else.

import type { Elysia } from 'elysia'
import type { Panel } from '../../core/index.ts'

/**
 * Mounts `panel` under `prefix` (`/panel` → `/panel/api/v1/...`). Elysia strips the prefix before the panel
 * sees the request, so the panel's own paths are unchanged.
 * @example mountPanel(new Elysia().get('/', () => 'shop'), panel, '/panel').listen(3000)
 */
export function mountPanel<App extends Elysia>(app: App, panel: Panel, prefix: string): App {
  return app.mount(prefix, (request: Request) => panel.handle(request)) as App
}
