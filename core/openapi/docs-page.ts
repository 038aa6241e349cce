// The browser side of /api/docs: a reference page whose scripts and styles the panel serves itself (no CDN).

import { dirname, join } from 'node:path'

const assetsDir = dirname(Bun.fileURLToPath(import.meta.resolve('swagger-ui-dist/package.json')))

/**
 * Assets served under `<docs>/assets/`, by file name → content type. A Map, not an object: `constructor` or
 * `__proto__` must be unknown names, not members every object inherits (once a 500 naming server paths).
 */
const assets: ReadonlyMap<string, string> = new Map([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
])

// The document's URL is worked out from this script's own (`<docs>/assets/init.js`), whatever `<docs>` is.
const initScript = `(function () {
  var spec = new URL('../openapi.json', document.currentScript.src).href
  window.addEventListener('load', function () {
    window.ui = SwaggerUIBundle({ url: spec, dom_id: '#reference', deepLinking: true })
  })
})()
`

/**
 * The HTML page served at `docsPath`. URLs are relative (`./docs/assets/…` for `/api/docs`), so the page works
 * wherever the panel is mounted; they resolve against the page's own URL, which therefore has no trailing slash.
 */
export function docsPageHtmlFor(docsPath: string): string {
  const last = docsPath.split('/').at(-1) ?? ''
  // `./` keeps a segment such as `docs:v1` from reading as a URL scheme.
  const assetsUrl = last ? `./${encodeURI(last)}/assets` : './assets'
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Plinth API reference</title>
<link rel="stylesheet" href="${assetsUrl}/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="${assetsUrl}/swagger-ui-bundle.js"></script>
<script src="${assetsUrl}/init.js"></script>
</body>
</html>
`
}

/**
 * The reference page's policy: its scripts and styles are the panel's own files (the viewer sets inline styles),
 * and no other site may frame it.
 */
export const docsPageSecurityHeaders = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
} as const

/** The page for the default docs path, `/api/docs`. */
export const docsPageHtml = docsPageHtmlFor('/api/docs')

/** One asset of the page, or null for an unknown name. */
export function docsAsset(name: string): Response | null {
  if (name === 'init.js')
    return new Response(initScript, { headers: { 'content-type': 'text/javascript; charset=utf-8' } })
  const type = assets.get(name)
  if (type === undefined) return null
  return new Response(Bun.file(join(assetsDir, name)), {
    headers: { 'content-type': type, 'cache-control': 'public, max-age=86400' },
  })
}

function qualityOf(accept: string, mediaType: string): number {
  const [type] = mediaType.split('/')
  let best = -1
  let quality = 0
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.trim().toLowerCase().split(';')
    const q = Number(
      params
        .find((p) => p.trim().startsWith('q='))
        ?.trim()
        .slice(2) ?? '1',
    )
    const specificity = range === mediaType ? 2 : range === `${type}/*` ? 1 : range === '*/*' ? 0 : -1
    if (specificity > best) {
      best = specificity
      quality = Number.isFinite(q) ? q : 0
    }
  }
  return quality
}

/** Whether the client prefers the HTML page to JSON (a browser does; curl's `*\/*` does not). */
export function prefersHtml(accept: string | null): boolean {
  if (!accept) return false
  return qualityOf(accept, 'text/html') > qualityOf(accept, 'application/json')
}
