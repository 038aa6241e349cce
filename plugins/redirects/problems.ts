// Refusals of the redirects plugin: each says which rule a redirect's `from` or `to`, or a header, broke.

import { defineProblems } from '../../core/index.ts'

/** The redirects plugin's problem codes, catalogued in docs/problem-codes.md. */
export const redirectProblems = defineProblems({
  invalid_redirect_path: {
    status: 422,
    detail: 'The path is not one a redirect can match.',
    description:
      '`from` starts with `/` and holds letters, digits, `-._~!&()*+,=:@/` and `%XX` escapes (UTF-8) only: no spaces, quotes, `;`, `$`, `{`, `}` or `\\` (escape them), at most 1024 characters.',
  },
  unsafe_redirect_path: {
    status: 422,
    detail: 'The path decodes to characters no path of a site may hold.',
    description:
      'Its `%XX` escapes decode to invalid UTF-8, a control, format or line-separator character, a tab, or one of `" \' \\ $ ; { } ? #`.',
  },
  redirect_path_query: {
    status: 422,
    detail: 'A redirect matches the path alone, never its query string or fragment.',
    description: '`from` holds `?` or `#`: drop them (the request’s query string is carried to the target).',
  },
  redirect_path_not_normalised: {
    status: 422,
    detail: 'The path has an empty, `.` or `..` segment, which no request’s path has once nginx reads it.',
    description:
      '`from` holds `//`, `/./` or `/../` (or ends with `/.` or `/..`): write the path they stand for.',
  },
  reserved_redirect_path: {
    status: 422,
    detail: 'This path is the node’s own.',
    description:
      '`from` is under `/.well-known/acme-challenge` (certificates are issued there), or is the prefix `/` (it would take the whole site: redirect each path, or point the domain elsewhere).',
  },
  invalid_redirect_target: {
    status: 422,
    detail: 'The target is neither a path of the site nor an absolute URL.',
    description:
      '`to` is a path starting with `/` (not `//`) or an `http://` or `https://` URL with a host, at most 2048 characters of a URL’s own: no spaces, quotes, `$`, `\\`, `{`, `}`, `<`, `>` or non-ASCII (percent-encode them).',
  },
  redirect_target_scheme: {
    status: 422,
    detail: 'A redirect leads only to an http or https address.',
    description: '`to` names another scheme (`javascript:`, `data:`, `ftp:`, …).',
  },
  redirect_target_credentials: {
    status: 422,
    detail: 'The target carries a user name or password.',
    description:
      '`to` holds `user:password@` before its host: browsers would send them, and it misleads readers.',
  },
  redirect_loop: {
    status: 422,
    detail: 'The redirect leads back to the path it matches.',
    description:
      'An exact redirect to its own path, or a prefix redirect to a path under its prefix (each answer would match again), on the site’s own domain.',
  },
  duplicate_redirect: {
    status: 409,
    detail: 'The site already has a redirect of this path and match.',
    description:
      'Another redirect has the same `match` and the same `from` (compared once decoded): change that one instead.',
  },
  redirect_limit_reached: {
    status: 422,
    detail: 'The site already has as many redirects as it may.',
    description:
      'Each site has at most the installation’s `maxRedirectsPerSite` (default 100); `limit` says it.',
  },
  invalid_header_name: {
    status: 422,
    detail: 'The header name is not an HTTP field name.',
    description:
      "`name` is 1 to 64 characters of an RFC 9110 token (letters, digits and ``!#%&'*+.^_`|~-``), without `$`.",
  },
  reserved_header: {
    status: 422,
    detail: 'This header is set by the node or belongs to the connection.',
    description:
      'Hop-by-hop headers (`Connection`, `Transfer-Encoding`, …) and those the node or the application sets (`Content-Length`, `Content-Type`, `Set-Cookie`, `Server`, `Location`, `Cache-Control`, `X-Cache`, `X-Accel-*`, …; docs/redirects.md lists them).',
  },
  duplicate_header: {
    status: 422,
    detail: 'The same header is given twice.',
    description:
      'Header names are compared without case: give each once (several values in one, comma-separated).',
  },
  invalid_header_value: {
    status: 422,
    detail: 'The header value is not printable ASCII without quotes, `\\` or `$`.',
    description:
      '`value` is 1 to 4096 visible ASCII characters and spaces, not starting or ending with a space, without `"`, `\\` or `$`.',
  },
})
