// The panel's checks of a redirect and of a site's headers, each refusal with its own code at its field. The node
// checks every value again (plugins/nodes/node/runtime/site-redirects.ts): keep the two in step.

import { FieldErrors } from '../../core/index.ts'
import { redirectProblems as problems } from './problems.ts'

const maxPathLength = 1024
const maxUrlLength = 2048
// A path as the client spells it: RFC 3986 `pchar` and `/`, less `$`, `'` and `;`, which nginx reads.
const rawPath = /^\/(?:[A-Za-z0-9\-._~!&()*+,=:@/]|%[0-9A-Fa-f]{2})*$/
const unsafeDecoded = /["'\\$;{}?#`\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|[^\S ]/u
const safeTarget = /^[A-Za-z0-9\-._~!&()*+,=:@/%?#;[\]]+$/
const headerName = /^[A-Za-z0-9!#%&'*+.^_`|~-]{1,64}$/
const headerValue = /^[!#%-[\]-~](?:[ !#%-[\]-~]*[!#%-[\]-~])?$/

/** Headers a site may not set (lower-case), besides `X-Accel-*` and `Proxy-*`: the node's list, the same. */
export const reservedHeaderNames: readonly string[] = [
  ...['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade'],
  ...['content-length', 'content-type', 'content-encoding', 'content-range', 'accept-ranges'],
  ...['set-cookie', 'server', 'date', 'location', 'etag', 'last-modified', 'vary', 'cache-control'],
  ...['expires', 'age', 'x-cache', 'host', 'status', 'alt-svc', 'www-authenticate'],
]
const reserved = new Set(reservedHeaderNames)

/** `path` with its `%XX` escapes decoded as UTF-8, as nginx compares paths; null when they are not UTF-8. */
export function decodedPath(path: string): string | null {
  try {
    return decodeURIComponent(path)
  } catch {
    return null
  }
}

/** A redirect as it is checked. */
export interface RedirectRule {
  readonly from: string
  readonly match: 'exact' | 'prefix'
  readonly to: string
}

/** Adds to `refusals` what is wrong with `from` (at `body.from`). */
function checkFrom(refusals: FieldErrors, rule: RedirectRule) {
  const at = 'body.from'
  const { from } = rule
  if (/[?#]/.test(from)) return refusals.add(problems.redirect_path_query, at)
  if (from.length > maxPathLength || !rawPath.test(from))
    return refusals.add(problems.invalid_redirect_path, at)
  const decoded = decodedPath(from)
  if (decoded === null || unsafeDecoded.test(decoded)) return refusals.add(problems.unsafe_redirect_path, at)
  if (/\/\/|\/\.\.?(?:\/|$)/.test(decoded)) return refusals.add(problems.redirect_path_not_normalised, at)
  if (decoded.startsWith('/.well-known/acme-challenge') || (rule.match === 'prefix' && from === '/'))
    refusals.add(problems.reserved_redirect_path, at)
}

/** Adds to `refusals` what is wrong with `to` (at `body.to`), its loop back to `from` on `domain` included. */
function checkTo(refusals: FieldErrors, rule: RedirectRule, domain: string) {
  const at = 'body.to'
  const { to } = rule
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(to)?.[1]?.toLowerCase()
  if (scheme !== undefined && scheme !== 'http' && scheme !== 'https')
    return refusals.add(problems.redirect_target_scheme, at)
  if (to.length > maxUrlLength || !safeTarget.test(to) || to.startsWith('//'))
    return refusals.add(problems.invalid_redirect_target, at)
  let path: string | null
  if (to.startsWith('/')) path = decodedPath(to.replace(/[?#].*$/s, ''))
  else {
    let url: URL
    try {
      url = new URL(to)
    } catch {
      return refusals.add(problems.invalid_redirect_target, at)
    }
    if (scheme === undefined || !/^https?:\/\/[^/?#]/i.test(to) || url.hostname === '')
      return refusals.add(problems.invalid_redirect_target, at)
    if (url.username !== '' || url.password !== '')
      return refusals.add(problems.redirect_target_credentials, at)
    path = url.hostname === domain ? decodedPath(url.pathname) : null
  }
  const from = decodedPath(rule.from)
  if (path === null || from === null) return
  if (rule.match === 'exact' ? path === from : path.startsWith(from)) refusals.add(problems.redirect_loop, at)
}

/**
 * Throws one 422 with every refusal of `rule` for a site at `domain`, each at its field; answers its `to` as kept:
 * an origin alone (`https://example.org`) with `/`, so a prefix's rest can never extend its host.
 */
export function checkRedirect(rule: RedirectRule, domain: string): string {
  const refusals = new FieldErrors()
  checkFrom(refusals, rule)
  checkTo(refusals, rule, domain)
  if (refusals.hasAny()) throw refusals.toProblem()
  return /^https?:\/\/[^/?#]+$/i.test(rule.to) ? `${rule.to}/` : rule.to
}

/** The key two redirects of one site may not share: their match and their decoded path. */
export const redirectKey = (rule: Pick<RedirectRule, 'from' | 'match'>) =>
  `${rule.match} ${decodedPath(rule.from) ?? rule.from}`

/** A site's response header as given. */
export interface HeaderRule {
  readonly name: string
  readonly value: string
}

/** Throws one 422 with every refusal of `headers`, each at `body.headers.N.name` or `.value`. */
export function checkHeaders(headers: readonly HeaderRule[]): void {
  const refusals = new FieldErrors()
  const seen = new Set<string>()
  headers.forEach(({ name, value }, index) => {
    const at = `body.headers.${index}`
    const lower = name.toLowerCase()
    if (!headerName.test(name)) refusals.add(problems.invalid_header_name, `${at}.name`)
    else if (reserved.has(lower) || lower.startsWith('x-accel-') || lower.startsWith('proxy-'))
      refusals.add(problems.reserved_header, `${at}.name`)
    else if (seen.has(lower)) refusals.add(problems.duplicate_header, `${at}.name`)
    seen.add(lower)
    if (!headerValue.test(value)) refusals.add(problems.invalid_header_value, `${at}.value`)
  })
  if (refusals.hasAny()) throw refusals.toProblem()
}
