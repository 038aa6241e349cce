// What the console serves to browsers: its page for every navigation the panel does not answer itself (so
// `/sites/site_…` can be reloaded and shared), and its built assets.

import type { WebRoute } from '../../core/index.ts'
import { type AppBundle, buildApp } from './app-bundle.ts'
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

/** Whether a browser is navigating (it prefers HTML), as opposed to a script or an asset fetch. */
function isNavigation(request: Request): boolean {
  const accept = request.headers.get('accept') ?? ''
  return accept.includes('text/html')
}

/** The console's web routes; the app is built once, on first use. */
export function consoleWebRoutes(location: ConsoleLocation, build: () => Promise<AppBundle> = buildApp) {
  let bundle: Promise<AppBundle> | undefined
  const built = () => {
    bundle ??= build().catch((error: unknown) => {
      bundle = undefined
      throw error
    })
    return bundle
  }
  let page: { readonly html: Uint8Array<ArrayBuffer>; readonly gzip: Uint8Array<ArrayBuffer> } | undefined
  const pageOf = async () => {
    if (!page) {
      const html = new TextEncoder().encode(pageHtml(await built(), location))
      page = { html, gzip: Bun.gzipSync(html) as Uint8Array<ArrayBuffer> }
    }
    return page
  }
  const acceptsGzip = (request: Request) => /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')

  const answerPage = async (request: Request): Promise<Response | null> => {
    if (!isNavigation(request)) return null
    const { html, gzip } = await pageOf()
    const zipped = acceptsGzip(request)
    return new Response(zipped ? gzip : html, {
      headers: {
        ...appSecurityHeaders,
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-cache',
        vary: 'Accept, Accept-Encoding',
        ...(zipped ? { 'content-encoding': 'gzip' } : {}),
      },
    })
  }
  // The panel sees its own paths (a host that mounts it under `/panel/` strips that prefix); only the page's URLs
  // carry the public path.
  const prefix = '/assets/'
  const routes: WebRoute[] = [
    { path: '/', answer: answerPage },
    {
      path: `${prefix}*`,
      async answer(request) {
        const asset = (await built()).assets.get(new URL(request.url).pathname.slice(prefix.length))
        if (!asset) return null
        const zipped = asset.gzip !== null && acceptsGzip(request)
        return new Response(zipped ? asset.gzip : asset.body, {
          headers: {
            ...appSecurityHeaders,
            'content-type': asset.type,
            'cache-control': 'public, max-age=31536000, immutable',
            vary: 'Accept-Encoding',
            ...(zipped ? { 'content-encoding': 'gzip' } : {}),
          },
        })
      },
    },
    {
      // Deep links: a path with no file extension, asked for by a browser navigating.
      path: '/*',
      answer: (request) => (/\.[a-z0-9]+$/i.test(new URL(request.url).pathname) ? null : answerPage(request)),
    },
  ]
  return { routes, warm: () => built().then(() => undefined) }
}
