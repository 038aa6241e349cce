// WordPress as a node installs it (the site runtime with the wordpress node module), with this machine's nginx,
// PHP-FPM, Debian's WordPress and MariaDB: installed on a
// database made for the test, served with its title, its admin logging in with the password whose bcrypt hash was
// given, an interrupted installation completed, a repeat changing nothing, and a new domain.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import mysql, { type Connection, type RowDataPacket } from 'mysql2/promise'
import {
  freePort,
  never,
  nodeWith,
  processesOf,
  readSiteState,
  requestSite as request,
  servingDataDir,
  sh,
  siteGroupCpuNanos,
  sitePaths,
  siteSpec,
} from '../../../hosts/testing/index.ts'
import type { SiteSpec } from '../../nodes/node/contract.ts'
import type { WordPressAppSettings } from './app-settings.ts'
import wordpressNodeModule from './index.ts'

const url = new URL(process.env.PLINTH_TEST_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306')
const dataDir = servingDataDir('plinth-wordpress-')
const port = freePort()
let runtime: Awaited<ReturnType<typeof nodeWith>>['runtime']
const suffix = randomBytes(4).toString('hex')
const database = {
  host: url.hostname,
  port: Number(url.port || 3306),
  name: `plinth_wp_${suffix}`,
  user: `plinth_wp_${suffix}`,
  // Quotes and a backslash: wp-config.php must carry it exactly.
  password: `pw-'"\\-${suffix}`,
}
const password = 'correct horse battery staple'
let passwordHash = ''
let root: Connection

/** The blog's WordPress: its admin's `$2y$` hash made as the panel makes it (Bun gives `$2b$`, the same algorithm). */
const settings = (overrides: Partial<WordPressAppSettings> = {}): WordPressAppSettings => ({
  title: 'Acme & Sons’ Blog',
  database,
  admin: { user: 'acme-admin', email: 'admin@example.com', passwordHash },
  ...overrides,
})

/** The blog, installing `wordpress` with `app`. */
const blog = (overrides: Partial<SiteSpec> = {}, app = settings()): SiteSpec =>
  siteSpec({
    id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SW1',
    handle: 'blog',
    domain: 'blog.example.com',
    type: 'wordpress',
    app: { kind: 'wordpress', settings: { ...app } },
    ...overrides,
  })
const paths = () => sitePaths(dataDir, blog())

beforeAll(async () => {
  passwordHash = (await Bun.password.hash(password, { algorithm: 'bcrypt' })).replace(/^\$2b\$/, '$2y$')
  root = await mysql.createConnection({
    host: database.host,
    port: database.port,
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  })
  await root.query(`CREATE DATABASE \`${database.name}\``)
  await root.query('CREATE USER ?@? IDENTIFIED BY ?', [database.user, '%', database.password])
  await root.query(`GRANT ALL ON \`${database.name}\`.* TO ?@?`, [database.user, '%'])
  runtime = (await nodeWith([wordpressNodeModule], { dataDir, httpPort: port, httpsPort: freePort() }))
    .runtime
  await runtime.start()
})

afterAll(async () => {
  await runtime?.delete(blog(), never()).catch(() => {})
  await runtime?.stop().catch(() => {})
  for (const pid of processesOf(dataDir)) process.kill(pid, 'SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
  await root?.query(`DROP DATABASE IF EXISTS \`${database.name}\``)
  await root?.query('DROP USER IF EXISTS ?@?', [database.user, '%'])
  await root?.end()
})

/** The blog's options and admin as its database has them. */
async function stored(name: string): Promise<string | undefined> {
  const [rows] = await root.query<RowDataPacket[]>(
    `SELECT option_value AS value FROM \`${database.name}\`.wp_options WHERE option_name = ?`,
    [name],
  )
  return rows[0]?.value
}
async function adminHash(): Promise<string | undefined> {
  const [rows] = await root.query<RowDataPacket[]>(
    `SELECT user_pass AS hash FROM \`${database.name}\`.wp_users WHERE user_login = ?`,
    ['acme-admin'],
  )
  return rows[0]?.hash
}

/** Logs in at wp-login.php as a browser does (with WordPress's test cookie). */
function logIn(domain: string, pwd: string) {
  return request(port, domain, '/wp-login.php', {
    method: 'POST',
    headers: {
      cookie: 'wordpress_test_cookie=WP%20Cookie%20check',
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      log: 'acme-admin',
      pwd,
      'wp-submit': 'Log In',
      redirect_to: `http://${domain}/wp-admin/`,
      testcookie: '1',
    }),
  })
}
const cookieNames = (response: Response) =>
  response.headers.getSetCookie().map((cookie) => cookie.split('=')[0])

/** A PNG of `side`×`side` random pixels: it does not compress, so its file is about 3·side² bytes. */
function noisePng(side: number): Uint8Array<ArrayBuffer> {
  const chunk = (type: string, data: Uint8Array) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const out = Buffer.alloc(body.length + 8)
    out.writeUInt32BE(data.length, 0)
    body.copy(out, 4)
    out.writeUInt32BE(Bun.hash.crc32(body) >>> 0, body.length + 4)
    return out
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(side, 0)
  header.writeUInt32BE(side, 4)
  header.set([8, 2, 0, 0, 0], 8) // 8 bits, RGB, deflate, no filter method, no interlace
  const rows = Buffer.alloc(side * (side * 3 + 1))
  for (let row = 0; row < side; row++)
    rows.set(crypto.getRandomValues(new Uint8Array(side * 3)), row * (side * 3 + 1) + 1)
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  const idat = Bun.deflateSync(rows, { level: 1 })
  const zlib = Buffer.concat([Buffer.from([0x78, 0x01]), idat, Buffer.alloc(4)])
  zlib.writeUInt32BE(adler32(rows) >>> 0, zlib.length - 4)
  return Buffer.concat([
    signature,
    chunk('IHDR', header),
    chunk('IDAT', zlib),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

function adler32(data: Uint8Array): number {
  let a = 1
  let b = 0
  for (const byte of data) {
    a = (a + byte) % 65521
    b = (b + a) % 65521
  }
  return (b << 16) | a
}

describe('a WordPress site', () => {
  test('whose installation failed after the copy (the database refused it) is completed by the next provision, and never served half-installed', async () => {
    const refused = blog({}, settings({ database: { ...database, password: 'wrong' } }))
    const failed = runtime.provision(refused, never())
    await expect(failed).rejects.toMatchObject({ code: 'wordpress_failed' })
    expect((await readSiteState(paths().state))?.app).toEqual({ kind: 'wordpress', stage: 'copied' })
    // No server block yet: an uninstalled WordPress would let anyone install it.
    expect((await request(port, 'blog.example.com')).status).toBe(404)

    await runtime.provision(blog(), never())
    expect((await readSiteState(paths().state))?.app).toEqual({ kind: 'wordpress', stage: 'installed' })
  }, 60_000)

  test('its installer (the copy and the PHP runner, as the site’s user) ran in the site’s group: the kernel counted its CPU there', async () => {
    if (process.getuid?.() !== 0) return
    // Only what the site ran through the node contract is in the group: its installation, nothing else so far.
    expect(await siteGroupCpuNanos(dataDir, blog().id)).toBeGreaterThan(50_000_000)
  })

  test('serves its front page with its title at its domain (no redirect to another address)', async () => {
    const front = await request(port, 'blog.example.com')
    expect(front.status).toBe(200)
    expect(await front.text()).toContain('<title>Acme &amp; Sons’ Blog</title>')
    expect(await stored('siteurl')).toBe('http://blog.example.com')
  })

  test('is its own copy of Debian’s tree (links dereferenced), the user’s, with a wp-config.php of its own', () => {
    const { htdocs, user } = paths()
    expect(sh(['find', htdocs, '-type', 'l']).stdout).toBe('')
    expect(sh(['find', htdocs, '!', '-user', user]).stdout).toBe('')
    const config = join(htdocs, 'wp-config.php')
    expect((statSync(config).mode & 0o777).toString(8)).toBe('640')
    const text = readFileSync(config, 'utf8')
    expect(text).toContain(`define('DB_HOST', '${database.host}:${database.port}');`)
    expect(text).toContain("define('DISALLOW_FILE_EDIT', true);")
    expect(text).toContain("$table_prefix = 'wp_';")
    const salts = [...text.matchAll(/define\('(?:[A-Z_]+_(?:KEY|SALT))', '([^']+)'\);/g)].map(
      (match) => match[1],
    )
    expect(salts).toHaveLength(8)
    expect(new Set(salts).size).toBe(8)
  })

  test('its admin logs in at wp-login.php with the password whose bcrypt hash was given, and not with another', async () => {
    const wrong = await logIn('blog.example.com', 'not the password')
    expect(wrong.status).toBe(200)
    expect(cookieNames(wrong).some((name) => name?.startsWith('wordpress_logged_in_'))).toBe(false)
    const right = await logIn('blog.example.com', password)
    expect(right.status).toBe(302)
    expect(right.headers.get('location')).toBe('http://blog.example.com/wp-admin/')
    expect(cookieNames(right).some((name) => name?.startsWith('wordpress_logged_in_'))).toBe(true)
  })

  test('provisioning it again changes nothing: not installed again, its admin and keys left as they are', async () => {
    const config = readFileSync(join(paths().htdocs, 'wp-config.php'), 'utf8')
    const hash = await adminHash()
    const other = (await Bun.password.hash('another', { algorithm: 'bcrypt' })).replace(/^\$2b\$/, '$2y$')
    await runtime.provision(
      blog({}, settings({ admin: { user: 'acme-admin', email: 'admin@example.com', passwordHash: other } })),
      never(),
    )
    expect(readFileSync(join(paths().htdocs, 'wp-config.php'), 'utf8')).toBe(config)
    expect(await adminHash()).toBe(hash)
    expect((await logIn('blog.example.com', password)).status).toBe(302)
  })

  test('provisioned again with a new database password (a repeated attempt), the site uses it: keys and admin kept', async () => {
    const before = readFileSync(join(paths().htdocs, 'wp-config.php'), 'utf8')
    const renewed = `renewed-'"\\-${suffix}`
    await root.query('ALTER USER ?@? IDENTIFIED BY ?', [database.user, '%', renewed])
    // The old password no longer works: until the site is given the new one, it cannot reach its database.
    expect((await request(port, 'blog.example.com')).status).toBe(500)
    await runtime.provision(blog({}, settings({ database: { ...database, password: renewed } })), never())
    const after = readFileSync(join(paths().htdocs, 'wp-config.php'), 'utf8')
    expect(after).toContain(`define('DB_PASSWORD', 'renewed-\\'"\\\\-${suffix}');`)
    // Only that line changed.
    expect(after.split('\n').filter((line, index) => line !== before.split('\n')[index])).toHaveLength(1)
    expect((await request(port, 'blog.example.com')).status).toBe(200)
    expect((await logIn('blog.example.com', password)).status).toBe(302)
    // Back to the first password for the tests after this one.
    await root.query('ALTER USER ?@? IDENTIFIED BY ?', [database.user, '%', database.password])
    await runtime.provision(blog(), never())
  })

  test('its administrator uploads a 5 MB image in wp-admin (a body nginx keeps in a file), and it is served', async () => {
    const login = await logIn('blog.example.com', password)
    const cookie = login.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ')
    const page = await request(port, 'blog.example.com', '/wp-admin/media-new.php', { headers: { cookie } })
    expect(page.status).toBe(200)
    const nonce = /"multipart_params":\{[^}]*"_wpnonce":"([0-9a-f]+)"/.exec(await page.text())?.[1]
    expect(nonce).toBeDefined()
    const image = noisePng(1300)
    expect(image.length).toBeGreaterThan(5_000_000)
    const form = new FormData()
    form.set('name', 'photo.png')
    form.set('action', 'upload-attachment')
    form.set('_wpnonce', nonce ?? '')
    form.set('async-upload', new File([image], 'photo.png', { type: 'image/png' }))
    const uploaded = await request(port, 'blog.example.com', '/wp-admin/async-upload.php', {
      method: 'POST',
      headers: { cookie },
      body: form,
    })
    expect(uploaded.status).toBe(200)
    const answer = (await uploaded.json()) as { success: boolean; data: { url: string } }
    expect(answer.success).toBe(true)
    const served = await request(port, 'blog.example.com', new URL(answer.data.url).pathname)
    expect(served.status).toBe(200)
    expect((await served.arrayBuffer()).byteLength).toBe(image.length)
  }, 60_000)

  test('moved to a new domain, it is served there, and WordPress knows its new address', async () => {
    await runtime.update(blog({ domain: 'news.example.org' }), never())
    const front = await request(port, 'news.example.org')
    expect(front.status).toBe(200)
    expect(await front.text()).toContain('<title>Acme &amp; Sons’ Blog</title>')
    expect((await request(port, 'blog.example.com')).status).toBe(404)
    expect([await stored('home'), await stored('siteurl')]).toEqual([
      'http://news.example.org',
      'http://news.example.org',
    ])
    expect(readFileSync(join(paths().htdocs, 'wp-config.php'), 'utf8')).toContain(
      "define('WP_HOME', 'http://news.example.org');",
    )
    const login = await logIn('news.example.org', password)
    expect(login.status).toBe(302)
    expect(login.headers.get('location')).toBe('http://news.example.org/wp-admin/')
  })
})
