// The console plugin: the operator console and customer portal, one web app served at `/` and built only on the
// public API (through clients generated from `/api/docs`). Staff land in the console, team members in the portal;
// what each sees follows their scopes. Plugins add their pages through `console.pages` (contract.ts), built into
// the app with the console's own. A brand swaps it for its own app by leaving this plugin out.

import { definePlugin } from '../../core/index.ts'
import { consoleModules, consolePages } from './contract.ts'
import { consoleWebRoutes } from './web-routes.ts'

/** Options of {@link consolePlugin}. */
export interface ConsoleOptions {
  /** The URL path browsers reach the panel at, ending in `/`; default `/` (`/panel/` when a host mounts it there). */
  readonly publicPath?: string
  /** The API's base path as browsers reach it, ending in `/api/v1`; default `<publicPath>api/v1`. */
  readonly apiBase?: string
}

/** The web console, served to browsers beside the API. */
export const consolePlugin = (options: ConsoleOptions = {}) => {
  const publicPath = options.publicPath ?? '/'
  if (!publicPath.startsWith('/') || !publicPath.endsWith('/'))
    throw new Error(`consolePlugin: publicPath must start and end with '/' (got ${publicPath})`)
  const apiBase = options.apiBase ?? `${publicPath}api/v1`
  // The app's client is generated for `/api/v1/...` paths: another version is another app.
  if (!apiBase.endsWith('/api/v1'))
    throw new Error(`consolePlugin: apiBase must end in /api/v1 (got ${apiBase})`)
  return definePlugin({
    name: 'console',
    version: '0.1.0',
    description: 'The operator console and customer portal: a web app on the public API, themed per brand.',
    extensionPoints: [consolePages],
    setup(context) {
      const added = context.extensionPoint(consolePages)
      context.provide(consoleModules, { list: () => added.list() })
    },
    // Built at the first visit (a few tenths of a second), not at start: most panels a test makes never serve it.
    webRoutes: (context) =>
      consoleWebRoutes(
        { publicPath, apiBase },
        context
          .extensionPoint(consolePages)
          .list()
          .map((entry) => entry.module),
      ),
  })
}
