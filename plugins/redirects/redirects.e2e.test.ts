// Redirects and response headers on a real node (this machine's nginx and PHP-FPM), without the panel's store: an
// exact and a prefix redirect answer their code and Location, headers show on a file and on a PHP answer (and on
// the redirects), values an attacker would send are refused by the node with nothing changed, and values that are
// allowed but look like nginx's syntax reach nginx as text (nginx -t passes, the answers carry them as they are).

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { lchownSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  freePort,
  never,
  nodeWith,
  type PlinthNode,
  processesOf,
  requestSite,
  servingDataDir,
  sitePaths,
  siteSpec,
} from '../../hosts/testing/index.ts'
import type { SiteServing, SiteSpec } from '../nodes/contract.ts'

const suffix = Math.random().toString(36).slice(2, 7)
const dataDir = servingDataDir('plinth-redirects-')
const port = freePort()
let node: PlinthNode
const serving: SiteServing = {
  redirects: [
    { from: '/old', match: 'exact', to: '/new', code: 301 },
    { from: '/blog/', match: 'prefix', to: 'https://example.org/articles/', code: 308 },
    { from: '/caf%C3%A9', match: 'exact', to: '/coffee?from=cafe', code: 302 },
    { from: '/p(1)*+x/', match: 'prefix', to: '/plain/', code: 307 },
    // Sent as an older panel might: an origin alone.
    { from: '/shop/', match: 'prefix', to: 'https://example.org', code: 302 },
  ],
  headers: [
    { name: 'X-Frame-Options', value: 'DENY' },
    { name: 'Content-Security-Policy', value: "default-src 'self'; script-src {x} 'nonce-a;b'" },
  ],
}
const site = siteSpec({
  id: `site_rdr${suffix}`,
  handle: `rdr${suffix}`,
  domain: `rdr${suffix}.example.com`,
  serving,
})
const paths = () => sitePaths(dataDir, site)
const get = (path: string) => requestSite(port, site.domain, path)

/** Writes a file into the site's documents, as its user. */
function put(name: string, text: string): void {
  const path = join(paths().htdocs, name)
  writeFileSync(path, text)
  const stats = statSync(paths().htdocs)
  lchownSync(path, stats.uid, stats.gid)
}

beforeAll(async () => {
  node = await nodeWith([], { dataDir, httpPort: port, httpsPort: freePort() })
  await node.runtime.start()
  await node.runtime.provision(site, never())
  put('page.html', '<p>page</p>')
  put('info.php', '<?php echo "php ", PHP_VERSION;')
}, 60_000)

afterAll(async () => {
  await node?.runtime.delete(site, never()).catch(() => {})
  await node?.runtime.stop().catch(() => {})
  for (const pid of processesOf(dataDir)) process.kill(pid, 'SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
})

describe('redirects', () => {
  test('an exact redirect answers its code and Location, the query string carried over', async () => {
    const answer = await get('/old?x=1&y=2')
    expect(answer.status).toBe(301)
    expect(answer.headers.get('location')).toEndWith('/new?x=1&y=2')
    // Exact: a path below it is not redirected.
    expect((await get('/old/more')).status).toBe(404)
  })

  test('a prefix redirect answers its code, the rest of the path appended to the target', async () => {
    const answer = await get('/blog/2024/post.php?page=2')
    expect(answer.status).toBe(308)
    expect(answer.headers.get('location')).toBe('https://example.org/articles/2024/post.php?page=2')
    expect((await get('/blog/')).headers.get('location')).toBe('https://example.org/articles/')
  })

  test('paths are matched decoded (escapes in either case), a target with a query keeps its own', async () => {
    for (const path of ['/caf%C3%A9', '/caf%c3%a9?ignored=1']) {
      const answer = await get(path)
      expect(answer.status).toBe(302)
      expect(answer.headers.get('location')).toEndWith('/coffee?from=cafe')
    }
  })

  test('characters of regular expressions in a prefix are only text', async () => {
    const answer = await get('/p(1)*+x/deep')
    expect(answer.status).toBe(307)
    expect(answer.headers.get('location')).toEndWith('/plain/deep')
    expect((await get('/p1x/deep')).status).toBe(404)
  })

  test('the rest never extends the host of a target that is an origin alone', async () => {
    const answer = await get('/shop/.evil.example/x')
    expect(answer.status).toBe(302)
    expect(answer.headers.get('location')).toBe('https://example.org/.evil.example/x')
  })

  test('a CR LF in the rest of a prefixed path never splits the answer', async () => {
    const answer = await get('/blog/x%0D%0ASet-Cookie:%20a=b')
    expect(answer.status).toBe(308)
    expect(answer.headers.get('set-cookie')).toBeNull()
    expect(answer.headers.get('location')).toBe('https://example.org/articles/x%0D%0ASet-Cookie:%20a=b')
  })
})

describe('headers', () => {
  test('show on a file, on a PHP answer, on a redirect and on a 404', async () => {
    const page = await get('/page.html')
    expect([page.status, await page.text()]).toEqual([200, '<p>page</p>'])
    const php = await get('/info.php')
    expect(php.status).toBe(200)
    expect(await php.text()).toStartWith('php ')
    for (const answer of [page, php, await get('/old'), await get('/missing')]) {
      expect(answer.headers.get('x-frame-options')).toBe('DENY')
      expect(answer.headers.get('content-security-policy')).toBe(
        "default-src 'self'; script-src {x} 'nonce-a;b'",
      )
    }
  })
})

describe('what an attacker sends', () => {
  const attacks: [string, SiteServing][] = [
    [
      'a directive after from',
      { redirects: [{ from: '/x; return 200', match: 'exact', to: '/y', code: 301 }] },
    ],
    [
      'a quote closing from',
      { redirects: [{ from: '/x" { return 200; } location "/y', match: 'exact', to: '/y', code: 301 }] },
    ],
    [
      'a newline in from',
      { redirects: [{ from: '/x\n    return 200;', match: 'exact', to: '/y', code: 301 }] },
    ],
    [
      'an escaped newline in from',
      { redirects: [{ from: '/x%0Areturn', match: 'exact', to: '/y', code: 301 }] },
    ],
    [
      'a unicode line separator',
      { redirects: [{ from: '/x%E2%80%A8y', match: 'exact', to: '/y', code: 301 }] },
    ],
    ['a brace', { redirects: [{ from: '/x{', match: 'prefix', to: '/y', code: 301 }] }],
    ['a variable in to', { redirects: [{ from: '/x', match: 'exact', to: '/$host', code: 301 }] }],
    ['a quote in to', { redirects: [{ from: '/x', match: 'exact', to: '/y"; return 200 "', code: 301 }] }],
    ['CR LF in to', { redirects: [{ from: '/x', match: 'exact', to: '/y\r\nSet-Cookie: a=b', code: 301 }] }],
    [
      'javascript: in to',
      { redirects: [{ from: '/x', match: 'exact', to: 'javascript:alert(1)', code: 301 }] },
    ],
    [
      '\\E ending the quoted pattern',
      { redirects: [{ from: '/x\\E.*', match: 'prefix', to: '/y', code: 301 }] },
    ],
    ['a loop', { redirects: [{ from: '/x/', match: 'prefix', to: '/x/y', code: 301 }] }],
    ['another code', { redirects: [{ from: '/x', match: 'exact', to: '/y', code: 200 as 301 }] }],
    ['a variable in a header', { headers: [{ name: 'X-A', value: '$http_cookie' }] }],
    ['a quote in a header', { headers: [{ name: 'X-A', value: 'a" always; return 200 "' }] }],
    ['a newline in a header', { headers: [{ name: 'X-A', value: 'a\nSet-Cookie: b' }] }],
    ['a header the node owns', { headers: [{ name: 'Set-Cookie', value: 'a=b' }] }],
    ['a header name with a space', { headers: [{ name: 'X A', value: 'b' }] }],
  ]
  test.each(attacks)(
    '%s: refused by the node, its server block and answers unchanged',
    async (_what, bad) => {
      const block = readFileSync(paths().serverBlock, 'utf8')
      const attempt = node.runtime.update({ ...site, serving: { ...serving, ...bad } } as SiteSpec, never())
      await expect(attempt).rejects.toMatchObject({ code: 'unsafe_site_spec' })
      expect(readFileSync(paths().serverBlock, 'utf8')).toBe(block)
      expect((await get('/old')).status).toBe(301)
    },
  )

  test('the server block holds the values as text between quotes, and nothing else of theirs', () => {
    const block = readFileSync(paths().serverBlock, 'utf8')
    expect(block).toContain('location = "/old" {')
    expect(block).toContain('location ^~ "/blog/" {')
    expect(block).toContain('location = "/café" {')
    expect(block).toContain('add_header "X-Frame-Options" "DENY" always;')
    for (const absent of ['$host', 'return 200', 'Set-Cookie', '\\E.*']) expect(block).not.toContain(absent)
    // Only the runtime's own variables: `$uri`, `$document_root`, …, and the redirects' own.
    const variables = new Set(block.match(/\$[a-z_]+/g))
    for (const variable of variables)
      expect([
        '$uri',
        '$document_root',
        '$fastcgi_script_name',
        '$request_uri',
        '$plinth_rest',
        '$is_args',
        '$args',
      ]).toContain(variable)
  })
})
