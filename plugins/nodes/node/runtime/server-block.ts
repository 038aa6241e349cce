// A site's nginx server block: over plain HTTP its document root (PHP through its pool), or 503 while suspended,
// with ACME HTTP-01 answers whatever its state; over HTTPS the same, once it has a certificate.

import type { SiteSpec } from '../contract.ts'
import type { RuntimeLayout, SiteLayout } from './layout.ts'
import { listenLines, sslProtocols } from './nginx.ts'
import {
  cacheLocationLines,
  cacheServerLines,
  cacheZoneLines,
  staticAssetLines,
} from './server-block-cache.ts'
import { headerLines, redirectLines } from './server-block-redirects.ts'
import { documentLines, phpRefusedLines, servesPhp } from './site-serving.ts'

/** The certificate a site is served with over HTTPS, by its files. */
export interface ServedCertificate {
  readonly fingerprint: string
  /** The certificate and its intermediates (`ssl_certificate`). */
  readonly chain: string
  readonly key: string
}

/** What a server block is made of besides the site. */
export interface ServerBlockOptions {
  readonly layout: RuntimeLayout
  readonly paths: SiteLayout
  readonly httpPort: number
  readonly httpsPort: number
  readonly ipv6: boolean
  readonly state: 'active' | 'suspended'
  /** Whether the site's PHP pool serves `.php` (false when the runtime lays out files only). */
  readonly php: boolean
  /**
   * Where a request for a path nginx has no file for goes: the site's application's (`/index.php?$args` for
   * WordPress), or null for 404.
   */
  readonly fallback: string | null
  /** Null: plain HTTP only. Given: a second server, on `httpsPort`, serves the site with it. */
  readonly certificate: ServedCertificate | null
}

/** The page a suspended site answers with, status 503. */
const suspendedPage = (domain: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${domain}</title></head><body><h1>${domain}</h1><p>This site is suspended.</p></body></html>`

/**
 * What the site answers, the same over HTTP and HTTPS: its logs, then its document root or, suspended, 503 from
 * `location /` (not from the server: a `return` there would run before the challenge location could answer).
 */
function siteBody(site: SiteSpec, options: ServerBlockOptions): string[] {
  const { paths } = options
  const logs = [`access_log "${paths.logs}/access.log" plinth;`, `error_log "${paths.logs}/error.log";`]
  if (options.state === 'suspended')
    return [
      ...logs,
      'location / {',
      '    types { }',
      '    default_type text/html;',
      `    return 503 '${suspendedPage(site.domain)}';`,
      '}',
    ]
  const fallback = options.fallback ?? '=404'
  const php = options.php && site.serving?.php !== false
  return [
    ...logs,
    ...cacheServerLines(site, php),
    ...documentLines(site, paths.htdocs, options.php),
    // nginx's workers read every site: a link to another site's files is followed only if it is the target's.
    // Checked from htdocs/ (root's home holds it: the site's user cannot swap it), not from the document root, a
    // folder of htdocs/ the site's user may replace with a link to files not theirs.
    `disable_symlinks if_not_owner "from=${paths.htdocs}";`,
    ...headerLines(site),
    ...redirectLines(site),
    '',
    'location / {',
    `    try_files $uri $uri/ ${fallback};`,
    '}',
    // .htaccess, .user.ini, .git: never served (.well-known is, for certificates).
    'location ~ /\\.(?!well-known/) {',
    '    deny all;',
    '}',
    ...(options.php
      ? [
          'location ~ \\.php$ {',
          ...headerLines(site).map((line) => `    ${line}`),
          '    try_files $uri =404;',
          `    include "${options.layout.nginx.fastcgiParams}";`,
          '    fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;',
          `    fastcgi_pass "unix:${paths.socket}";`,
          ...cacheLocationLines(site, php).map((line) => `    ${line}`),
          '}',
        ]
      : servesPhp(site)
        ? []
        : phpRefusedLines()),
    ...staticAssetLines(fallback),
  ]
}

/**
 * ACME HTTP-01 answers from `<dataDir>/acme`: `^~` so no regular-expression location of the site (its `.php`, its
 * dot-files) is tried, and the longest prefix, so it wins over `location /` (a suspended site's 503 included).
 */
const challengeLocation = (layout: RuntimeLayout) => [
  'location ^~ /.well-known/acme-challenge/ {',
  `    root "${layout.acme.root}";`,
  '    default_type text/plain;',
  '    try_files $uri =404;',
  '}',
]

/** One `server { }`: its listen lines, its name, then `lines`. */
const server = (listen: string[], domain: string, lines: string[]) =>
  `server {
${[...listen, `server_name ${domain};`, ...lines].map((line) => (line ? `    ${line}` : '')).join('\n')}
}
`

/**
 * The nginx server block of a site. Every value in it was checked by `checkSiteSpec`, `checkConfigPath` and
 * `checkCertificate`; paths are quoted (a data directory may contain spaces).
 */
export function serverBlock(site: SiteSpec, options: ServerBlockOptions): string {
  const { state, certificate } = options
  const quota = site.diskMB === null ? 'unlimited' : `${site.diskMB} MB`
  const header = [
    `# Managed by Plinth for site ${site.id} (${site.handle}, customer ${site.customerId}).`,
    '# Rewritten on every change of the site: do not edit by hand.',
    `# State: ${state}${state === 'suspended' ? ' (every request answers 503)' : ''}`,
    `# Disk quota: ${quota}`,
    `# HTTPS: ${certificate ? `certificate ${certificate.fingerprint}` : 'none'}`,
  ]
  const body = siteBody(site, options)
  const zone = cacheZoneLines(site, options.layout, options.php && site.serving?.php !== false)
  const http = server(listenLines(options.httpPort, options.ipv6), site.domain, [
    ...challengeLocation(options.layout),
    ...body,
  ])
  if (!certificate) return `${[...header, ...zone].join('\n')}\n${http}`
  const https = server(listenLines(options.httpsPort, options.ipv6, ' ssl'), site.domain, [
    `ssl_certificate "${certificate.chain}";`,
    `ssl_certificate_key "${certificate.key}";`,
    sslProtocols,
    ...body,
  ])
  return `${[...header, ...zone].join('\n')}\n${http}${https}`
}
