// The node's own check of a site's redirects and response headers (`SiteSpec.serving`), before any reaches nginx:
// the panel checked them too, but the node trusts no value it is sent (docs/redirects.md, "On the node").

import type { SiteHeaderSpec, SiteRedirectSpec, SiteServing } from '../contract.ts'

/** At most this many redirects and headers per site: more is not a site's settings but an attack on the node. */
export const maxSiteRedirects = 500
export const maxSiteHeaders = 64
const maxPathLength = 1024
const maxUrlLength = 2048
const maxHeaderValueLength = 4096

const codes = new Set([301, 302, 307, 308])
// Characters of a path as the client spells it (RFC 3986 `pchar` and `/`), less those nginx's configuration or its
// variables give a meaning to (`$`, `;`, `{`, `}`, quotes, `\`): percent-encode them instead.
const rawPath = /^\/(?:[A-Za-z0-9\-._~!&()*+,=:@/]|%[0-9A-Fa-f]{2})*$/
// What a decoded path may hold: no control, format or separator character of Unicode (line separators), none of
// the characters above, no `?` or `#` (nginx matches the path alone).
const unsafeDecoded = /["'\\$;{}?#`\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|[^\S ]/u
// A redirect's target: printable ASCII without quotes, `\`, `$` (nginx's `return` expands variables), `{`, `}`,
// `<`, `>`, spaces or backticks.
const safeTarget = /^[A-Za-z0-9\-._~!&()*+,=:@/%?#;[\]]+$/
// RFC 9110 `token`, less `$`.
const headerName = /^[A-Za-z0-9!#%&'*+.^_`|~-]{1,64}$/
// Visible ASCII and space, without `"`, `\` or `$`; neither starting nor ending with a space.
const headerValue = /^[!#%-[\]-~](?:[ !#%-[\]-~]*[!#%-[\]-~])?$/

/**
 * Headers the node sets itself or that belong to the connection, never a site's (lower-case). Keep in step with
 * the panel's list (plugins/redirects/headers-rules.ts).
 */
export const reservedHeaderNames: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'content-length',
  'content-type',
  'content-encoding',
  'content-range',
  'accept-ranges',
  'set-cookie',
  'server',
  'date',
  'location',
  'etag',
  'last-modified',
  'vary',
  'cache-control',
  'expires',
  'age',
  'x-cache',
  'host',
  'status',
  'alt-svc',
  'www-authenticate',
])

/** `path` with its percent-escapes decoded as UTF-8, as nginx compares paths; null when they are not valid UTF-8. */
export function decodedPath(path: string): string | null {
  try {
    return decodeURIComponent(path)
  } catch {
    return null
  }
}

/** Whether `path` is a path nginx matches as it is: `/`-led, no `//`, `.` or `..` segment once decoded. */
const normalised = (decoded: string) => !/\/\/|\/\.\.?(?:\/|$)/.test(decoded)

/** What is wrong with a redirect's `from`, or null. */
export function fromProblem(from: unknown): string | null {
  if (typeof from !== 'string' || from.length > maxPathLength || !rawPath.test(from))
    return 'is not a path of at most 1024 characters, spelled with letters, digits, -._~!&()*+,=:@/ and %XX escapes'
  const decoded = decodedPath(from)
  if (decoded === null || unsafeDecoded.test(decoded))
    return 'decodes to characters no path of a site may hold'
  if (!normalised(decoded)) return 'holds an empty, `.` or `..` segment'
  if (decoded.startsWith('/.well-known/acme-challenge')) return 'is the node’s own (certificates)'
  return null
}

/** What is wrong with a redirect's `to`, or null. */
export function toProblem(to: unknown): string | null {
  if (typeof to !== 'string' || to.length > maxUrlLength || !safeTarget.test(to))
    return 'is not at most 2048 characters of a URL’s own (no spaces, quotes, `$`, `\\`, `{`, `}`)'
  if (to.startsWith('/')) return to.startsWith('//') ? 'is a URL without its scheme' : null
  let url: URL
  try {
    url = new URL(to)
  } catch {
    return 'is neither a path nor an absolute URL'
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'is not an http or https URL'
  if (!/^https?:\/\/[^/?#]/i.test(to) || url.hostname === '') return 'names no host'
  if (url.username !== '' || url.password !== '') return 'carries a user name or password'
  return null
}

/** The path a redirect's `to` leads to on `domain`, decoded (null when it leads elsewhere). */
export function targetPathOn(to: string, domain: string): string | null {
  if (to.startsWith('/')) return decodedPath(to.replace(/[?#].*$/s, ''))
  try {
    const url = new URL(to)
    return url.hostname === domain ? decodedPath(url.pathname) : null
  } catch {
    return null
  }
}

/** Whether `redirect` sends a request back to what it matched (itself, or below its prefix). */
export function loops(redirect: Pick<SiteRedirectSpec, 'from' | 'match' | 'to'>, domain: string): boolean {
  const target = targetPathOn(redirect.to, domain)
  const from = decodedPath(redirect.from)
  if (target === null || from === null) return false
  return redirect.match === 'exact' ? target === from : target.startsWith(from)
}

/** What is wrong with a site's redirects, or null. */
function redirectsProblem(redirects: unknown, domain: string): string | null {
  if (!Array.isArray(redirects) || redirects.length > maxSiteRedirects)
    return `its redirects are not a list of at most ${maxSiteRedirects}`
  const seen = new Set<string>()
  for (const [index, redirect] of (redirects as SiteRedirectSpec[]).entries()) {
    const at = `redirect ${index}`
    if (typeof redirect !== 'object' || redirect === null) return `${at} is not a redirect`
    const problem = fromProblem(redirect.from)
    if (problem) return `${at}: its from ${problem}`
    const target = toProblem(redirect.to)
    if (target) return `${at}: its to ${target}`
    if (redirect.match !== 'exact' && redirect.match !== 'prefix')
      return `${at}: its match is not exact or prefix`
    if (redirect.match === 'prefix' && redirect.from === '/')
      return `${at}: a prefix of / would take the whole site`
    if (!codes.has(redirect.code)) return `${at}: its code is not 301, 302, 307 or 308`
    if (loops(redirect, domain)) return `${at} leads back to itself`
    const key = `${redirect.match} ${decodedPath(redirect.from)}`
    if (seen.has(key)) return `${at} repeats the ${redirect.match} path of another`
    seen.add(key)
  }
  return null
}

/** What is wrong with a site's headers, or null. */
function headersProblem(headers: unknown): string | null {
  if (!Array.isArray(headers) || headers.length > maxSiteHeaders)
    return `its headers are not a list of at most ${maxSiteHeaders}`
  const seen = new Set<string>()
  for (const [index, header] of (headers as SiteHeaderSpec[]).entries()) {
    const at = `header ${index}`
    if (typeof header !== 'object' || header === null) return `${at} is not a header`
    if (typeof header.name !== 'string' || !headerName.test(header.name))
      return `${at}: its name is not a token`
    const name = header.name.toLowerCase()
    if (reservedHeaderNames.has(name) || name.startsWith('x-accel-') || name.startsWith('proxy-'))
      return `${at}: ${header.name} is the node’s own`
    if (seen.has(name)) return `${at}: ${header.name} is given twice`
    seen.add(name)
    if (
      typeof header.value !== 'string' ||
      header.value.length > maxHeaderValueLength ||
      !headerValue.test(header.value)
    )
      return `${at}: its value is not printable ASCII without quotes, \\ or $`
  }
  return null
}

/**
 * What is wrong with the redirects and headers of `serving` for a site at `domain`, in words for an operator, or
 * null when nginx may be given them. `checkSiteSpec` fails the site with it.
 */
export function servingRedirectsProblem(serving: SiteServing | undefined, domain: string): string | null {
  if (serving === undefined) return null
  if (serving.redirects !== undefined) {
    const problem = redirectsProblem(serving.redirects, domain)
    if (problem) return problem
  }
  return serving.headers === undefined ? null : headersProblem(serving.headers)
}
