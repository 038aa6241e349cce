// What the console serves to browsers: its page for every navigation the panel does not answer itself (so
// `/sites/site_…` can be reloaded and shared), and its built assets.

import { prefersHtml, type WebRoute } from '../../core/index.ts'
import { type AppBundle, type BuiltAsset, buildApp, builtAsset } from './app-bundle.ts'
import { appSecurityHeaders } from './content-security-policy.ts'

/** Where the app lives and which API it speaks to. */
export interface ConsoleLocation {
  /** The URL path browsers reach the panel at, ending in `/` (`/` standalone, `/panel/` when mounted there). */
  readonly publicPath: string
  /** The API's base path as browsers reach it (`/api/v1`). */
  readonly apiBase: string
}

const escapeAttribute = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** The app's one HTML page: no inline script; the API's location is read by the app from a meta element. */
export function pageHtml(bundle: AppBundle, location: ConsoleLocation): string {
  const asset = (name: string) => escapeAttribute(`${location.publicPath}assets/${name}`)
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="plinth-api-base" content="${escapeAttribute(location.apiBase)}">
<meta name="plinth-public-path" content="${escapeAttribute(location.publicPath)}">
<title>Control panel</title>
<link rel="icon" href="data:,">
${bundle.styles.map((name) => `<link rel="stylesheet" href="${asset(name)}">`).join('\n')}
<script type="module" src="${asset(bundle.script)}"></script>
</head>
<body>
<div id="root"><noscript>This control panel needs JavaScript.</noscript></div>
</body>
</html>
`
}

/** The console's web routes; the app (with the console `modules`) and its page are built once, on first use. */
export function consoleWebRoutes(location: ConsoleLocation, modules: readonly string[]) {
  let app: Promise<{ readonly bundle: AppBundle; readonly page: BuiltAsset }> | undefined
  const built = () => {
    app ??= buildApp(modules).then(
      (bundle) => ({
        bundle,
        page: builtAsset(new TextEncoder().encode(pageHtml(bundle, location)), 'text/html; charset=utf-8'),
      }),
      (error: unknown) => {
        // A failed build is tried again at the next visit rather than kept.
        app = undefined
        throw error
      },
    )
    return app
  }

  /** A built file as the answer: gzipped when the browser takes it, under the app's security headers. */
  const served = (request: Request, file: BuiltAsset, headers: Record<string, string>): Response => {
    const zipped = file.gzip !== null && /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')
    return new Response(zipped ? file.gzip : file.body, {
      headers: {
        ...appSecurityHeaders,
        ...headers,
        'content-type': file.type,
        ...(zipped ? { 'content-encoding': 'gzip' } : {}),
      },
    })
  }

  /** The page, for a browser navigating (it prefers HTML); scripts and asset fetches are declined. */
  const answerPage = async (request: Request): Promise<Response | null> =>
    prefersHtml(request.headers.get('accept'))
      ? served(request, (await built()).page, {
          'cache-control': 'no-cache',
          vary: 'Accept, Accept-Encoding',
        })
      : null

  // The panel sees its own paths (a host that mounts it under `/panel/` strips that prefix); only the page's URLs
  // carry the public path.
  const prefix = '/assets/'
  const routes: WebRoute[] = [
    { path: '/', answer: answerPage },
    {
      path: `${prefix}*`,
      async answer(request) {
        const asset = (await built()).bundle.assets.get(new URL(request.url).pathname.slice(prefix.length))
        return asset
          ? served(request, asset, {
              'cache-control': 'public, max-age=31536000, immutable',
              vary: 'Accept-Encoding',
            })
          : null
      },
    },
    {
      // Deep links: a path with no file extension, asked for by a browser navigating.
      path: '/*',
      answer: (request) => (/\.[a-z0-9]+$/i.test(new URL(request.url).pathname) ? null : answerPage(request)),
    },
  ]
  return routes
}
