// The page cache on a real node (this machine's nginx, PHP-FPM, Debian's WordPress and MariaDB), through the node
// runtime with the wordpress and cache node modules: a second request for the front page is a HIT, a logged-in
// cookie, a query string, a POST and WordPress's admin bypass it, a post edited through WordPress (XML-RPC) shows
// within a second, purges by path and of everything empty it, and with the cache off nothing is a HIT.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import {
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import mysql, { type Connection } from 'mysql2/promise'
import {
  freePort,
  never,
  nodeWith,
  processesOf,
  requestSite as request,
  servingDataDir,
  sitePaths,
  siteSpec,
} from '../../hosts/testing/index.ts'
import type { SiteCacheSpec, SiteSpec } from '../nodes/node/contract.ts'
import { wordpressNodeModule } from '../wordpress/index.ts'
import cacheNodeModule from './node/index.ts'
import { cacheServiceName } from './node/protocol.ts'

const url = new URL(process.env.PLINTH_TEST_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306')
const dataDir = servingDataDir('plinth-cache-')
const port = freePort()
const suffix = randomBytes(4).toString('hex')
const database = {
  host: url.hostname,
  port: Number(url.port || 3306),
  name: `plinth_cache_${suffix}`,
  user: `plinth_cache_${suffix}`,
  password: `pw-${suffix}`,
}
const password = 'correct horse battery staple'
let node: Awaited<ReturnType<typeof nodeWith>>
let stopServices: () => Promise<void> = async () => {}
let root: Connection
let passwordHash = ''

const cacheOn: SiteCacheSpec = { enabled: true, ttlSeconds: 600, bypassCookies: ['my_session'] }
const blog = (cache: SiteCacheSpec = cacheOn): SiteSpec =>
  siteSpec({
    id: `site_cache_${suffix}`,
    handle: `cache-${suffix}`,
    domain: `cache-${suffix}.example.com`,
    type: 'wordpress',
    diskMB: null,
    app: {
      kind: 'wordpress',
      settings: {
        title: 'Cached Blog',
        database,
        admin: { user: 'cache-admin', email: 'admin@example.com', passwordHash },
      },
    },
    // A header of the site's own (the redirects plugin's): served beside X-Cache on PHP's answers.
    serving: { cache, headers: [{ name: 'X-Frame-Options', value: 'SAMEORIGIN' }] },
  })
const domain = `cache-${suffix}.example.com`
const get = (path = '/', init: RequestInit = {}) => request(port, domain, path, init)
/** The X-Cache header of a request (its body read). */
async function status(path = '/', init: RequestInit = {}): Promise<string | null> {
  const response = await get(path, init)
  await response.arrayBuffer()
  return response.headers.get('x-cache')
}
const purge = (paths?: string[]) =>
  node.runtime.call(
    { siteId: blog().id, service: cacheServiceName, request: { op: 'purge', ...(paths ? { paths } : {}) } },
    never(),
  ) as Promise<{ removed: number }>

/** Edits post 1 through WordPress's REST API as its admin, logged in with a cookie (its requests: never cached). */
async function editPost(title: string): Promise<void> {
  const login = await get('/wp-login.php', {
    method: 'POST',
    headers: {
      cookie: 'wordpress_test_cookie=WP%20Cookie%20check',
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ log: 'cache-admin', pwd: password, testcookie: '1' }),
  })
  const cookie = login.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ')
  const nonce = await (
    await get('/wp-admin/admin-ajax.php?action=rest-nonce', { headers: { cookie } })
  ).text()
  const edited = await get('/?rest_route=/wp/v2/posts/1', {
    method: 'POST',
    headers: { cookie, 'x-wp-nonce': nonce, 'content-type': 'application/json' },
    body: JSON.stringify({ title }),
  })
  if (edited.status !== 200)
    throw new Error(`The post edit answered ${edited.status}: ${await edited.text()}`)
}

beforeAll(async () => {
  passwordHash = (await Bun.password.hash(password, { algorithm: 'bcrypt', cost: 4 })).replace(
    /^\$2b\$/,
    '$2y$',
  )
  root = await mysql.createConnection({
    host: database.host,
    port: database.port,
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  })
  await root.query(`CREATE DATABASE \`${database.name}\``)
  await root.query('CREATE USER ?@? IDENTIFIED BY ?', [database.user, '%', database.password])
  await root.query(`GRANT ALL ON \`${database.name}\`.* TO ?@?`, [database.user, '%'])
  node = await nodeWith([wordpressNodeModule, cacheNodeModule], {
    dataDir,
    httpPort: port,
    httpsPort: freePort(),
  })
  await node.runtime.start()
  stopServices = await node.startServices(() => {})
  await node.runtime.provision(blog(), never())
}, 120_000)

afterAll(async () => {
  await stopServices().catch(() => {})
  await node?.runtime.delete(blog(), never()).catch(() => {})
  await node?.runtime.stop().catch(() => {})
  for (const pid of processesOf(dataDir)) process.kill(pid, 'SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
  await root?.query(`DROP DATABASE IF EXISTS \`${database.name}\``)
  await root?.query('DROP USER IF EXISTS ?@?', [database.user, '%'])
  await root?.end()
})

describe('a WordPress site with its page cache on', () => {
  test('the second request for the front page is a HIT', async () => {
    await purge()
    expect(await status('/')).toBe('MISS')
    const second = await get('/')
    expect(second.status).toBe(200)
    expect(await second.text()).toContain('Cached Blog')
    expect(second.headers.get('x-cache')).toBe('HIT')
    expect(second.headers.get('x-frame-options')).toBe('SAMEORIGIN')
  })

  test('logged-in users, the site’s own bypass cookie, query strings, POST and the admin bypass it', async () => {
    await status('/')
    expect(await status('/')).toBe('HIT')
    expect(await status('/', { headers: { cookie: 'wordpress_logged_in_0123abcd=admin%7C1' } })).toBe(
      'BYPASS',
    )
    expect(await status('/', { headers: { cookie: 'a=1; woocommerce_items_in_cart=1' } })).toBe('BYPASS')
    expect(await status('/', { headers: { cookie: 'my_session=42' } })).toBe('BYPASS')
    // A cookie whose name only ends like one is no logged-in user.
    expect(await status('/', { headers: { cookie: 'xwordpress_logged_in_1=1' } })).toBe('HIT')
    expect(await status('/?s=hello')).toBe('BYPASS')
    expect(await status('/', { headers: { authorization: 'Basic dXNlcjpwYXNz' } })).toBe('BYPASS')
    expect(await status('/wp-login.php')).toBe('BYPASS')
    // A POST is never looked up in the cache (nginx caches GET and HEAD alone): no X-Cache at all.
    const posted = await get('/', { method: 'POST', body: 'x=1' })
    expect(posted.status).toBe(200)
    await posted.arrayBuffer()
    expect(posted.headers.get('x-cache')).toBeNull()
    expect(await status('/')).toBe('HIT')
  })

  test('a post edited through WordPress shows within a second', async () => {
    await status('/')
    expect(await status('/')).toBe('HIT')
    const title = `Fresh title ${randomBytes(3).toString('hex')}`
    await editPost(title)
    const edited = performance.now()
    let seen = false
    while (!seen && performance.now() - edited < 1000) {
      seen = (await (await get('/')).text()).includes(title)
      if (!seen) await Bun.sleep(50)
    }
    expect(seen).toBe(true)
    // Its must-use plugin asked; the node consumed the request.
    const spool = join(sitePaths(dataDir, blog()).tmp, 'plinth-cache-purge')
    expect([...new Bun.Glob('*.purge').scanSync({ cwd: spool })]).toEqual([])
  })

  test('a purge by path and a purge of everything empty the cache', async () => {
    await status('/')
    await status('/feed/')
    expect(await status('/')).toBe('HIT')
    expect(await status('/feed/')).toBe('HIT')
    expect((await purge(['/'])).removed).toBeGreaterThanOrEqual(1)
    expect(await status('/feed/')).toBe('HIT')
    expect(await status('/')).toBe('MISS')
    expect(await status('/')).toBe('HIT')
    expect((await purge()).removed).toBeGreaterThanOrEqual(2)
    expect(await status('/')).toBe('MISS')
    expect(await status('/feed/')).toBe('MISS')
  })

  test('the spool only ever purges the site’s own cache: a FIFO or a link in it is skipped, not followed', async () => {
    const paths = sitePaths(dataDir, blog())
    const spool = join(paths.tmp, 'plinth-cache-purge')
    const owner = statSync(paths.htdocs)
    mkdirSync(spool, { recursive: true })
    chownSync(spool, owner.uid, owner.gid)
    expect(Bun.spawnSync(['mkfifo', join(spool, '1-fifo.purge')]).exitCode).toBe(0)
    symlinkSync('/etc/passwd', join(spool, '2-link.purge'))
    await status('/')
    expect(await status('/')).toBe('HIT')
    writeFileSync(join(spool, '3-real.purge'), '/\n')
    for (const name of ['1-fifo.purge', '3-real.purge']) chownSync(join(spool, name), owner.uid, owner.gid)
    const asked = performance.now()
    let purged = false
    while (!purged && performance.now() - asked < 1000) {
      purged = (await status('/')) === 'MISS'
      if (!purged) await Bun.sleep(50)
    }
    expect(purged).toBe(true)
    await Bun.sleep(300)
    expect(readdirSync(spool)).toEqual([])
  })

  test('static assets carry long cache headers and text is gzipped', async () => {
    const css = await get('/wp-includes/css/dashicons.min.css', { headers: { 'accept-encoding': 'gzip' } })
    await css.arrayBuffer()
    expect(css.status).toBe(200)
    expect(css.headers.get('cache-control')).toBe('max-age=2592000')
    expect(css.headers.get('content-encoding')).toBe('gzip')
    expect(css.headers.get('x-cache')).toBeNull()
  })

  test('with the cache off nothing is a HIT, and the must-use plugin is gone', async () => {
    await node.runtime.update(blog({ ...cacheOn, enabled: false }), never())
    expect(await status('/')).toBeNull()
    const again = await get('/')
    expect(again.status).toBe(200)
    expect(again.headers.get('x-cache')).toBeNull()
    const muPlugin = join(
      sitePaths(dataDir, blog()).htdocs,
      'wp-content',
      'mu-plugins',
      'plinth-cache-purge.php',
    )
    expect(existsSync(muPlugin)).toBe(false)
    await node.runtime.update(blog(), never())
    expect(existsSync(muPlugin)).toBe(true)
  }, 60_000)

  test('the node refuses a cache spec that would inject nginx syntax', async () => {
    for (const cache of [
      { ...cacheOn, bypassCookies: ['a"; return 200 "x'] },
      { ...cacheOn, excludedPaths: ['/a$b'] },
      { ...cacheOn, excludedPaths: ['/a\n}'] },
      { ...cacheOn, ttlSeconds: 0 },
      { ...cacheOn, ttlSeconds: 1.5 },
    ])
      await expect(node.runtime.update(blog(cache as SiteCacheSpec), never())).rejects.toMatchObject({
        code: 'unsafe_site_spec',
      })
    expect(await status('/')).not.toBeNull()
  }, 30_000)
})
