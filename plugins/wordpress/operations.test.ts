// WordPress operations through the API on a real site: a test panel whose local node serves with this machine's
// nginx, PHP-FPM, Debian's WordPress and MariaDB. Core version, plugins and themes (installed from zips put in the
// site, zips that climb out or carry links refused), users (a reset password logs in at wp-login.php), maintenance
// mode seen by visitors, search-replace after a domain change; refusals for other sites, suspended sites and other
// customers; and every operation in the audit log, without a password.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  chmodSync,
  chownSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mysql, { type Connection, type RowDataPacket } from 'mysql2/promise'
import { definePlugin } from '../../core/index.ts'
import {
  createTestPanel,
  expectProblem,
  freePort,
  removeNodeLeftovers,
  type TestPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { databasesPlugin } from '../databases/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import { siteTypes } from '../sites/contract.ts'
import { sitesPlugin } from '../sites/index.ts'
import { wordpressPlugin } from './index.ts'
import { makeZip } from './testing/zip.ts'

const folder = mkdtempSync(join(tmpdir(), 'plinth-wp-ops-'))
const sitesDir = join(folder, 'sites')
// nginx's workers and the sites' users pass through to the sites' homes.
chmodSync(folder, 0o711)
const httpPort = freePort()
const url = new URL(process.env.PLINTH_TEST_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306')

let tp: TestPanel
let token: string
let otherToken: string
let root: Connection
const tag = crypto.randomUUID().slice(0, 8)
const domain = `wp-${tag}.example.test`
const newDomain = `moved-${tag}.example.test`
let siteId = ''
let staticSiteId = ''
let databaseName = ''
const shownPasswords: string[] = []

const staticSites = () =>
  definePlugin({
    name: 'static-sites',
    version: '1.0.0',
    description: 'Static sites, for the tests.',
    requires: ['sites'],
    setup(context) {
      context.extensionPoint(siteTypes).add({ name: 'plain', description: 'Plain files.' })
    },
  })

interface Answer<T = Record<string, unknown>> {
  readonly status: number
  readonly body: T
  readonly response: Response
}
async function call<T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
  as = token,
): Promise<Answer<T>> {
  const response = await tp.request(method, `/api/v1${path}`, { token: as, body })
  const text = await response.clone().text()
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T, response }
}
const wp = (path = '') => `/sites/${siteId}/wordpress${path}`

async function finished(jobId: string) {
  return waitFor(
    `job ${jobId}`,
    async () => {
      const job = (await call<{ status: string; error: unknown }>('GET', `/jobs/${jobId}`)).body
      if (job.status === 'succeeded' || job.status === 'failed') return job
      await Bun.sleep(100)
      return null
    },
    120_000,
  )
}

/** What the site's nginx answers for `host` at `path`. */
const fromSite = (host: string, path = '/', init: RequestInit = {}) =>
  fetch(`http://127.0.0.1:${httpPort}${path}`, {
    ...init,
    redirect: 'manual',
    headers: { ...(init.headers as Record<string, string> | undefined), host },
  })

/** Logs in at wp-login.php as a browser does; true when WordPress set its logged-in cookie. */
async function logsIn(host: string, login: string, password: string): Promise<boolean> {
  const response = await fromSite(host, '/wp-login.php', {
    method: 'POST',
    headers: {
      cookie: 'wordpress_test_cookie=WP%20Cookie%20check',
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ log: login, pwd: password, 'wp-submit': 'Log In', testcookie: '1' }),
  })
  return response.headers.getSetCookie().some((cookie) => cookie.startsWith('wordpress_logged_in_'))
}

const home = () => join(sitesDir, 'sites', siteId)
/** Puts a file into the site as its user would have uploaded it (the files API or SFTP). */
function upload(sitePath: string, content: Uint8Array | string): string {
  const path = join(home(), sitePath)
  writeFileSync(path, content)
  const owner = statSync(join(home(), 'htdocs'))
  chownSync(path, owner.uid, owner.gid)
  return sitePath
}

const plugin = (slug: string, extra: Record<string, string> = {}) =>
  makeZip([
    {
      name: `${slug}/${slug}.php`,
      content: `<?php\n/*\nPlugin Name: Plinth ${slug}\nVersion: 1.2.3\nDescription: A plugin for the tests.\n*/\nregister_activation_hook(__FILE__, function () { update_option('${slug.replaceAll('-', '_')}_activated', 'yes'); });\n`,
    },
    ...Object.entries(extra).map(([name, content]) => ({ name: `${slug}/${name}`, content })),
  ])

beforeAll(async () => {
  root = await mysql.createConnection({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  })
  tp = await createTestPanel({
    standard: false,
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      nodesPlugin({
        dataDir: join(folder, 'panel'),
        localServing: { dataDir: sitesDir, httpPort, httpsPort: freePort() },
      }),
      sitesPlugin({ wordpress: false }),
      databasesPlugin(),
      wordpressPlugin(),
      staticSites(),
    ],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  token = await tp.token()
  expect(
    (
      await call('POST', '/database-servers', {
        name: 'mariadb-1',
        engine: 'mariadb',
        host: url.hostname,
        port: Number(url.port || 3306),
        username: decodeURIComponent(url.username) || 'root',
        password: decodeURIComponent(url.password),
      })
    ).status,
  ).toBe(201)
  // The local node says it serves (nginx and PHP-FPM found) shortly after the start: until then a site would be laid
  // out as files only.
  await waitFor('the local node to serve', async () => {
    const nodes = await call<{ items: { agent: { capabilities: { mode: string } | null } }[] }>(
      'GET',
      '/nodes',
    )
    if (nodes.body.items[0]?.agent.capabilities?.mode === 'serving') return true
    await Bun.sleep(50)
    return null
  })
  const acme = await call<{ id: string }>('POST', '/customers', { name: 'Acme' })
  const other = await call<{ id: string }>('POST', '/customers', { name: 'Other' })
  otherToken = await tp.token({ customerId: other.body.id })
  const site = await call<{ id: string; jobId: string }>('POST', '/sites', {
    customerId: acme.body.id,
    name: 'Acme Blog',
    type: 'wordpress',
    domain,
  })
  expect(site.status).toBe(201)
  siteId = site.body.id
  const plain = await call<{ id: string; jobId: string }>('POST', '/sites', {
    customerId: acme.body.id,
    name: 'Plain',
    type: 'plain',
    domain: `plain-${tag}.example.test`,
  })
  staticSiteId = plain.body.id
  expect(await finished(site.body.jobId)).toMatchObject({ status: 'succeeded' })
  expect(await finished(plain.body.jobId)).toMatchObject({ status: 'succeeded' })
  const databases = await call<{ items: { name: string; siteId: string | null }[] }>(
    'GET',
    `/databases?customerId=${acme.body.id}`,
  )
  databaseName = databases.body.items.find((database) => database.siteId === siteId)?.name ?? ''
  expect(databaseName).not.toBe('')
}, 180_000)

afterAll(async () => {
  if (siteId) {
    const deleted = await call<{ jobId: string }>('DELETE', `/sites/${siteId}`).catch(() => null)
    if (deleted?.body?.jobId) await finished(deleted.body.jobId).catch(() => {})
    // The site's database and login go in jobs of their own: waited for, so none runs on after the panel closed.
    await waitFor(
      'the site’s database to be dropped',
      async () => {
        const left = await call<{ items: { siteId: string | null }[] }>('GET', '/databases?limit=100')
        if (!left.body.items.some((database) => database.siteId === siteId)) return true
        await Bun.sleep(200)
        return null
      },
      60_000,
    ).catch(() => {})
  }
  await tp?.panel.close()
  // The local node's nginx and PHP-FPM outlive the panel: stopped here, with the sites' users.
  removeNodeLeftovers(sitesDir)
  // What the databases plugin made for the site, whether or not its deletion got to it before the panel closed.
  if (databaseName) {
    await root?.query(`DROP DATABASE IF EXISTS \`${databaseName}\``).catch(() => {})
    await root
      ?.query('DROP USER IF EXISTS ?@?, ?@?, ?@?', [
        databaseName,
        '%',
        databaseName,
        'localhost',
        databaseName,
        '127.0.0.1',
      ])
      .catch(() => {})
  }
  await root?.end()
  rmSync(folder, { recursive: true, force: true })
}, 120_000)

describe('WordPress operations on a served site', () => {
  test('the core: Debian’s WordPress version, the site’s address and title, maintenance off', async () => {
    const core = await call('GET', wp())
    expect(core.status).toBe(200)
    const debian = /\$wp_version = '([^']+)'/.exec(
      readFileSync('/usr/share/wordpress/wp-includes/version.php', 'utf8'),
    )?.[1]
    expect(core.body).toEqual({
      version: debian,
      databaseVersion: expect.any(Number),
      siteUrl: `http://${domain}`,
      title: 'Acme Blog',
      maintenance: false,
    })
  })

  test('plugins: Debian’s akismet listed, activated and deactivated (idempotently), unknown ones 404', async () => {
    const list = await call<{ items: { slug: string; status: string }[]; nextCursor: null }>(
      'GET',
      wp('/plugins'),
    )
    expect(list.status).toBe(200)
    expect(list.body.items).toContainEqual(
      expect.objectContaining({ slug: 'akismet', file: 'akismet/akismet.php', status: 'inactive' }),
    )
    expect(list.body.nextCursor).toBeNull()
    const activated = await call('POST', wp('/plugins/akismet/activate'))
    expect(activated.body).toMatchObject({ slug: 'akismet', status: 'active' })
    expect((await call('POST', wp('/plugins/akismet/activate'))).body).toMatchObject({ status: 'active' })
    await expectProblem(
      (await call('DELETE', wp('/plugins/akismet'))).response,
      409,
      'wordpress_plugin_active',
    )
    expect((await call('POST', wp('/plugins/akismet/deactivate'))).body).toMatchObject({ status: 'inactive' })
    expect((await call('POST', wp('/plugins/akismet/deactivate'))).body).toMatchObject({ status: 'inactive' })
    await expectProblem(
      (await call('POST', wp('/plugins/nothing-here/activate'))).response,
      404,
      'wordpress_plugin_not_found',
    )
    // Not a slug: never reaches the node.
    expect((await call('POST', wp('/plugins/..%2F..%2Fetc/activate'))).status).toBeGreaterThanOrEqual(400)
  })

  test('a plugin installed from a zip in the site: inactive, its activation hook runs, a second install is 409, delete', async () => {
    const path = upload('/tmp/plinth-hello.zip', plugin('plinth-hello'))
    const installed = await call('POST', wp('/plugins'), { path })
    expect(installed.status).toBe(201)
    expect(installed.body).toEqual({
      slug: 'plinth-hello',
      file: 'plinth-hello/plinth-hello.php',
      name: 'Plinth plinth-hello',
      version: '1.2.3',
      status: 'inactive',
      description: 'A plugin for the tests.',
    })
    expect(installed.response.headers.get('location')).toBe(`/api/v1${wp('/plugins/plinth-hello')}`)
    // The customer's zip is left where it was; the plugin's files are the site user's.
    expect(statSync(join(home(), 'tmp/plinth-hello.zip')).isFile()).toBe(true)
    const pluginFile = join(home(), 'htdocs/wp-content/plugins/plinth-hello/plinth-hello.php')
    expect(statSync(pluginFile).uid).toBe(statSync(join(home(), 'htdocs')).uid)
    await expectProblem(
      (await call('POST', wp('/plugins'), { path })).response,
      409,
      'wordpress_plugin_exists',
    )
    expect((await call('POST', wp('/plugins/plinth-hello/activate'))).body).toMatchObject({
      status: 'active',
    })
    const [rows] = await root.query<RowDataPacket[]>(
      `SELECT option_value FROM \`${databaseName}\`.wp_options WHERE option_name = 'plinth_hello_activated'`,
    )
    expect(rows[0]?.option_value).toBe('yes')
    await call('POST', wp('/plugins/plinth-hello/deactivate'))
    expect((await call('DELETE', wp('/plugins/plinth-hello'))).status).toBe(204)
    expect(() => statSync(pluginFile)).toThrow()
    await expectProblem(
      (await call('DELETE', wp('/plugins/plinth-hello'))).response,
      404,
      'wordpress_plugin_not_found',
    )
  })

  test('zips that climb out, name absolute paths or carry links are refused, and nothing is extracted', async () => {
    const cases = [
      {
        name: 'climbs',
        entries: [
          { name: 'evil/evil.php', content: '<?php /* Plugin Name: Evil */' },
          { name: 'evil/../../../../evil.php', content: '<?php echo 1;' },
        ],
      },
      { name: 'absolute', entries: [{ name: '/tmp/evil.php', content: '<?php echo 1;' }] },
      {
        name: 'link',
        entries: [
          { name: 'evil/evil.php', content: '<?php /* Plugin Name: Evil */' },
          { name: 'evil/passwd', link: '/etc/passwd' },
        ],
      },
    ] as const
    for (const { name, entries } of cases) {
      const path = upload(`/tmp/${name}.zip`, makeZip(entries))
      const refused = await call<{ reason: string; entry: string }>('POST', wp('/plugins'), { path })
      await expectProblem(refused.response, 422, 'unsafe_package_entry')
      expect(refused.body.reason).toBe(name)
    }
    expect(() => statSync(join(home(), 'htdocs/wp-content/plugins/evil'))).toThrow()
    expect(() => statSync(join(home(), 'htdocs/evil.php'))).toThrow()
    expect(() => statSync(join(home(), 'evil.php'))).toThrow()
    // Not a zip, and a zip with no plugin in it.
    await expectProblem(
      (await call('POST', wp('/plugins'), { path: upload('/tmp/junk.zip', 'not a zip at all, just text') }))
        .response,
      422,
      'invalid_wordpress_package',
    )
    const noPlugin = upload('/tmp/readme.zip', makeZip([{ name: 'readme/readme.txt', content: 'hello' }]))
    await expectProblem(
      (await call('POST', wp('/plugins'), { path: noPlugin })).response,
      422,
      'invalid_wordpress_package',
    )
    expect(() => statSync(join(home(), 'htdocs/wp-content/plugins/readme'))).toThrow()
  })

  test('the zip’s path stays in the site: no climbing out, no link followed, nothing that is not a file', async () => {
    symlinkSync('/etc/passwd', join(home(), 'tmp/passwd.zip'))
    symlinkSync('/etc', join(home(), 'tmp/etc'))
    const refusals: [string, string][] = [
      ['/../../../etc/passwd', 'package_path_escapes_site'],
      ['/tmp/etc/passwd', 'package_path_escapes_site'],
      ['/tmp/passwd.zip', 'invalid_package_path'],
      ['/tmp', 'invalid_package_path'],
      ['/state.json', 'invalid_package_path'],
      ['/tmp/missing.zip', 'wordpress_package_not_found'],
    ]
    for (const [path, code] of refusals)
      await expectProblem((await call('POST', wp('/plugins'), { path })).response, 422, code)
    // A path that is not a site path, or holds a NUL byte, never leaves the panel.
    expect((await call('POST', wp('/plugins'), { path: 'tmp/x.zip' })).status).toBe(422)
    const nul = await call<{ errors: unknown[] }>('POST', wp('/plugins'), { path: '/tmp/a\u0000b.zip' })
    expect(nul.status).toBe(422)
  })

  test('a plugin that fails: activation refused with WordPress’s words; an uninstall that dies is wordpress_error', async () => {
    const broken = upload(
      '/tmp/plinth-broken.zip',
      makeZip([
        {
          name: 'plinth-broken/plinth-broken.php',
          content:
            '<?php\n/* Plugin Name: Plinth Broken */\nif (get_option("plinth_broken_loads")) return;\nplinth_no_such_function();\n',
        },
        {
          name: 'plinth-broken/uninstall.php',
          content: '<?php throw new RuntimeException("uninstall exploded");\n',
        },
      ]),
    )
    expect((await call('POST', wp('/plugins'), { path: broken })).status).toBe(201)
    const refused = await call<{ detail: string }>('POST', wp('/plugins/plinth-broken/activate'))
    await expectProblem(refused.response, 422, 'wordpress_activation_failed')
    expect(refused.body.detail).toContain('plinth_no_such_function')
    const failed = await call<{ detail: string }>('DELETE', wp('/plugins/plinth-broken'))
    await expectProblem(failed.response, 502, 'wordpress_error')
    expect(failed.body.detail).toContain('uninstall exploded')
    // Node paths are shown as site paths.
    expect(failed.body.detail).not.toContain(sitesDir)
  })

  test('themes: listed, one installed from a zip, activated (the site shows it), the active one not deleted', async () => {
    const list = await call<{ items: { slug: string; status: string }[] }>('GET', wp('/themes'))
    expect(list.body.items).toContainEqual(
      expect.objectContaining({ slug: 'twentytwentythree', status: 'active' }),
    )
    const zip = makeZip([
      { name: 'plinth-theme/style.css', content: '/*\nTheme Name: Plinth Theme\nVersion: 2.0\n*/\n' },
      { name: 'plinth-theme/index.php', content: '<?php echo "Served by the Plinth theme";\n' },
    ])
    const installed = await call('POST', wp('/themes'), { path: upload('/tmp/plinth-theme.zip', zip) })
    expect(installed.status).toBe(201)
    expect(installed.body).toEqual({
      slug: 'plinth-theme',
      name: 'Plinth Theme',
      version: '2.0',
      status: 'inactive',
      parent: null,
    })
    await expectProblem(
      (await call('POST', wp('/themes'), { path: '/tmp/plinth-theme.zip' })).response,
      409,
      'wordpress_theme_exists',
    )
    expect((await call('POST', wp('/themes/plinth-theme/activate'))).body).toMatchObject({ status: 'active' })
    expect(await (await fromSite(domain)).text()).toContain('Served by the Plinth theme')
    await expectProblem(
      (await call('DELETE', wp('/themes/plinth-theme'))).response,
      409,
      'wordpress_theme_active',
    )
    expect((await call('POST', wp('/themes/twentytwentythree/activate'))).body).toMatchObject({
      status: 'active',
    })
    expect(await (await fromSite(domain)).text()).not.toContain('Served by the Plinth theme')
    expect((await call('DELETE', wp('/themes/plinth-theme'))).status).toBe(204)
    await expectProblem(
      (await call('POST', wp('/themes/plinth-theme/activate'))).response,
      404,
      'wordpress_theme_not_found',
    )
  })

  test('users: listed by page, created with a password shown once that logs in, a reset password logs in and the old one not', async () => {
    const first = await call<{ items: { id: number; login: string; roles: string[] }[] }>('GET', wp('/users'))
    expect(first.body.items).toEqual([
      expect.objectContaining({ id: 1, login: 'admin', roles: ['administrator'], email: `admin@${domain}` }),
    ])
    const created = await call<{ id: number; login: string; password: string; roles: string[] }>(
      'POST',
      wp('/users'),
      {
        login: 'editor-jo',
        email: 'jo@example.test',
        role: 'editor',
        displayName: 'Jo',
      },
    )
    expect(created.status).toBe(201)
    expect(created.response.headers.get('cache-control')).toBe('no-store')
    expect(created.body).toMatchObject({ login: 'editor-jo', roles: ['editor'], displayName: 'Jo' })
    expect(created.body.password).toMatch(/^[A-Za-z0-9]{20}$/)
    shownPasswords.push(created.body.password)
    expect(await logsIn(domain, 'editor-jo', created.body.password)).toBe(true)
    await expectProblem(
      (await call('POST', wp('/users'), { login: 'editor-jo', email: 'other@example.test', role: 'editor' }))
        .response,
      409,
      'wordpress_user_exists',
    )
    await expectProblem(
      (await call('POST', wp('/users'), { login: 'jo2', email: 'jo2@example.test', role: 'overlord' }))
        .response,
      422,
      'unknown_wordpress_role',
    )

    // One a page: the cursor walks on, and a cursor of another site or altered is refused.
    const page1 = await call<{ items: { login: string }[]; nextCursor: string }>('GET', wp('/users?limit=1'))
    expect(page1.body.items.map((user) => user.login)).toEqual(['admin'])
    const page2 = await call<{ items: { login: string }[]; nextCursor: string | null }>(
      'GET',
      wp(`/users?limit=1&cursor=${encodeURIComponent(page1.body.nextCursor)}`),
    )
    expect(page2.body.items.map((user) => user.login)).toEqual(['editor-jo'])
    expect(page2.body.nextCursor).toBeNull()
    await expectProblem(
      (await call('GET', wp(`/users?cursor=${encodeURIComponent(`${page1.body.nextCursor}x`)}`))).response,
      400,
      'invalid_cursor',
    )

    const reset = await call<{ id: number; password: string }>(
      'POST',
      wp(`/users/${created.body.id}/password`),
    )
    expect(reset.status).toBe(200)
    expect(reset.response.headers.get('cache-control')).toBe('no-store')
    shownPasswords.push(reset.body.password)
    expect(reset.body.password).not.toBe(created.body.password)
    expect(await logsIn(domain, 'editor-jo', reset.body.password)).toBe(true)
    expect(await logsIn(domain, 'editor-jo', created.body.password)).toBe(false)
    await expectProblem(
      (await call('POST', wp('/users/99999/password'))).response,
      404,
      'wordpress_user_not_found',
    )
  })

  test('maintenance on: visitors get WordPress’s 503 maintenance page (past WordPress’s 10 minutes); off: 200', async () => {
    const on = await call('PUT', wp('/maintenance'), { enabled: true })
    expect(on.status).toBe(200)
    expect(on.body).toMatchObject({ maintenance: true })
    const down = await fromSite(domain)
    expect(down.status).toBe(503)
    expect(await down.text()).toContain('Briefly unavailable for scheduled maintenance')
    // Operations go on in maintenance: the runner ignores it.
    expect((await call('GET', wp())).body).toMatchObject({ maintenance: true })
    const off = await call('PUT', wp('/maintenance'), { enabled: false })
    expect(off.body).toMatchObject({ maintenance: false })
    expect((await fromSite(domain)).status).toBe(200)
  })

  test('search-replace after a domain change: counted in a dry run, then replaced, serialized values kept valid', async () => {
    const old = `http://${domain}`
    const serialized = `a:2:{s:3:"url";s:${old.length + 6}:"${old}/page/";s:4:"list";a:1:{i:0;s:${old.length}:"${old}";}}`
    await root.query(
      `INSERT INTO \`${databaseName}\`.wp_options (option_name, option_value, autoload) VALUES ('plinth_links', ?, 'no')`,
      [serialized],
    )
    await root.query(
      `UPDATE \`${databaseName}\`.wp_posts SET post_content = CONCAT(post_content, ?) WHERE ID = 1`,
      [`<a href="${old}/about/">About</a>`],
    )
    const moved = await call<{ jobId: string }>('PATCH', `/sites/${siteId}`, { domain: newDomain })
    expect(moved.status).toBe(200)
    expect(await finished(moved.body.jobId)).toMatchObject({ status: 'succeeded' })
    expect((await call('GET', wp())).body).toMatchObject({ siteUrl: `http://${newDomain}` })

    const dry = await call('POST', wp('/search-replace'), { from: old, dryRun: true })
    expect(dry.status).toBe(200)
    // (Bun's toMatchObject puts `expect.any` matchers into the object it is given: the count is read first.)
    const counted = dry.body.replacements as number
    expect(counted).toBeGreaterThanOrEqual(3)
    expect(dry.body).toMatchObject({ from: old, to: `http://${newDomain}`, dryRun: true })
    const [before] = await root.query<RowDataPacket[]>(
      `SELECT option_value FROM \`${databaseName}\`.wp_options WHERE option_name = 'plinth_links'`,
    )
    expect(before[0]?.option_value).toBe(serialized)

    const done = await call<{ replacements: number; tables: { name: string }[] }>(
      'POST',
      wp('/search-replace'),
      { from: old },
    )
    expect(done.body.replacements).toBe(counted)
    expect(done.body.tables.map((table) => table.name)).toEqual(
      expect.arrayContaining(['wp_options', 'wp_posts']),
    )
    const renewed = `http://${newDomain}`
    const [after] = await root.query<RowDataPacket[]>(
      `SELECT option_value FROM \`${databaseName}\`.wp_options WHERE option_name = 'plinth_links'`,
    )
    expect(after[0]?.option_value).toBe(
      `a:2:{s:3:"url";s:${renewed.length + 6}:"${renewed}/page/";s:4:"list";a:1:{i:0;s:${renewed.length}:"${renewed}";}}`,
    )
    const [posts] = await root.query<RowDataPacket[]>(
      `SELECT post_content, guid FROM \`${databaseName}\`.wp_posts WHERE ID = 1`,
    )
    expect(posts[0]?.post_content).toContain(`${renewed}/about/`)
    expect(posts[0]?.post_content).not.toContain(old)
    // WordPress's advice: a post's guid stays what it was.
    expect(posts[0]?.guid).toContain(old)
    expect(
      (await call<{ replacements: number }>('POST', wp('/search-replace'), { from: old })).body.replacements,
    ).toBe(0)
    expect((await fromSite(newDomain)).status).toBe(200)
    expect((await call('POST', wp('/search-replace'), { from: 'ftp://x' })).status).toBe(422)
  })

  test('every operation is in the audit log with the site as its subject, and no password anywhere in it', async () => {
    const audit = await call<{ items: { action: string; details: unknown }[] }>(
      'GET',
      `/audit?subject=${siteId}&limit=100`,
    )
    const actions = new Set(audit.body.items.map((entry) => entry.action))
    for (const action of [
      'wordpress.read',
      'wordpress.maintenance',
      'wordpress.search_replace',
      'wordpress_plugin.list',
      'wordpress_plugin.install',
      'wordpress_plugin.activate',
      'wordpress_plugin.deactivate',
      'wordpress_plugin.delete',
      'wordpress_theme.list',
      'wordpress_theme.install',
      'wordpress_theme.activate',
      'wordpress_theme.delete',
      'wordpress_user.list',
      'wordpress_user.create',
      'wordpress_user.reset_password',
    ])
      expect(actions).toContain(action)
    // The reset names whom it was for, as docs/wordpress.md says: id, login and role (never the password).
    expect(
      audit.body.items.find((entry) => entry.action === 'wordpress_user.reset_password')?.details,
    ).toEqual({ userId: expect.any(Number), login: 'editor-jo', role: 'editor' })
    expect(
      audit.body.items.find((entry) => entry.action === 'wordpress_plugin.install')?.details,
    ).toMatchObject({
      slug: expect.any(String),
      path: expect.any(String),
    })
    const rows = await tp.panel.store.db
      .withTables<{ audit_entries: { details: string | null } }>()
      .selectFrom('audit_entries')
      .select('details')
      .execute()
    const text = JSON.stringify(rows)
    expect(shownPasswords).toHaveLength(2)
    for (const password of shownPasswords) expect(text).not.toContain(password)
  })

  test('a package whose folder is not a slug is refused before anything is unpacked, plugin or theme', async () => {
    const pluginsDir = join(home(), 'htdocs/wp-content/plugins')
    const themesDir = join(home(), 'htdocs/wp-content/themes')
    const upgradeDir = join(home(), 'htdocs/wp-content/upgrade')
    const listing = (dir: string) => {
      try {
        return readdirSync(dir).sort()
      } catch {
        return []
      }
    }
    const before = [listing(pluginsDir), listing(themesDir), listing(upgradeDir)]
    const header = '<?php\n/*\nPlugin Name: Badly Named\n*/\n'
    const cases: { file: string; folder: string; entries: { name: string; content: string }[] }[] = [
      {
        file: 'dotted',
        folder: 'dotted.plugin',
        entries: [{ name: 'dotted.plugin/p.php', content: header }],
      },
      { file: 'spaced', folder: 'with space', entries: [{ name: 'with space/p.php', content: header }] },
      { file: 'dots', folder: '..foo', entries: [{ name: '..foo/p.php', content: header }] },
      // Files at the top: WordPress names the folder after the zip.
      { file: 'flat.plugin', folder: 'flat.plugin', entries: [{ name: 'flat.php', content: header }] },
    ]
    for (const { file, folder, entries } of cases) {
      const path = upload(`/tmp/${file}.zip`, makeZip(entries))
      const refused = await call<{ reason: string; folder: string }>('POST', wp('/plugins'), { path })
      await expectProblem(refused.response, 422, 'invalid_wordpress_package')
      expect(refused.body).toMatchObject({ reason: 'folder', folder })
    }
    const theme = upload(
      '/tmp/dotted-theme.zip',
      makeZip([
        { name: 'dotted.theme/style.css', content: '/*\nTheme Name: Dotted\n*/\n' },
        { name: 'dotted.theme/index.php', content: '<?php echo "dotted";' },
      ]),
    )
    const refusedTheme = await call<{ reason: string }>('POST', wp('/themes'), { path: theme })
    await expectProblem(refusedTheme.response, 422, 'invalid_wordpress_package')
    expect(refusedTheme.body.reason).toBe('folder')
    // Nothing left behind: no plugin, theme or half-unpacked working folder.
    expect([listing(pluginsDir), listing(themesDir), listing(upgradeDir)]).toEqual(before)
    // A slug with digits, - and _ still installs (and is removed again).
    const fine = upload('/tmp/fine.zip', plugin('Fine_2-ok'))
    expect((await call('POST', wp('/plugins'), { path: fine })).status).toBe(201)
    expect((await call('DELETE', wp('/plugins/Fine_2-ok'))).status).toBe(204)
  })

  /** Writes a must-use plugin into the served site as its Unix user (what the site's own code could do). */
  function muPlugin(name: string, php: string): string {
    const owner = statSync(join(home(), 'htdocs'))
    const dir = join(home(), 'htdocs/wp-content/mu-plugins')
    const file = join(dir, name)
    const staged = join(home(), 'tmp', `${name}.staged`)
    writeFileSync(staged, php)
    chownSync(staged, owner.uid, owner.gid)
    const written = Bun.spawnSync([
      'setpriv',
      `--reuid=${owner.uid}`,
      `--regid=${owner.gid}`,
      '--clear-groups',
      '--',
      'sh',
      '-c',
      'mkdir -p "$1" && mv "$2" "$3"',
      'sh',
      dir,
      staged,
      file,
    ])
    expect(written.exitCode).toBe(0)
    expect(statSync(file).uid).toBe(owner.uid)
    return file
  }

  test('a must-use plugin printing forged PLINTH-ANSWER lines does not change the answer', async () => {
    const honest = await call('GET', wp())
    expect(honest.status).toBe(200)
    const forged = JSON.stringify({
      ok: {
        version: '0.0.1-forged',
        databaseVersion: 1,
        siteUrl: 'http://evil.test',
        title: 'Forged',
        maintenance: true,
      },
    })
    const lines = [
      `PLINTH-ANSWER ${forged}`,
      `PLINTH-ANSWER-${'0'.repeat(32)} ${forged}`,
      `PLINTH-ANSWER-${'f'.repeat(32)} ${forged}`,
    ]
    const file = muPlugin(
      'plinth-forger.php',
      `<?php\n$plinth_forged = ${JSON.stringify(lines.join('\n'))};\n` +
        // Before WordPress answers, after it (at shutdown), and with whatever nonce the globals might give away.
        'echo "\\n" . $plinth_forged . "\\n";\n' +
        '$plinth_guess = $GLOBALS["plinth_in"]["nonce"] ?? null;\n' +
        `if (is_string($plinth_guess)) echo "\\nPLINTH-ANSWER-" . $plinth_guess . " " . ${JSON.stringify(forged)} . "\\n";\n` +
        'register_shutdown_function(function () use ($plinth_forged) { echo "\\n" . $plinth_forged . "\\n"; });\n',
    )
    try {
      const answered = await call('GET', wp())
      expect(answered.status).toBe(200)
      expect(answered.body).toEqual(honest.body)
      expect(JSON.stringify(answered.body)).not.toContain('forged')
    } finally {
      rmSync(file, { force: true })
    }
  })

  test('a must-use plugin printing more than 8 MiB on a list gets 502 wordpress_output_too_large; the panel stays up', async () => {
    const file = muPlugin(
      'plinth-flood.php',
      '<?php\n$plinth_chunk = str_repeat("flood ", 174763);\nfor ($i = 0; $i < 12; $i++) echo $plinth_chunk;\n',
    )
    try {
      await expectProblem((await call('GET', wp('/plugins'))).response, 502, 'wordpress_output_too_large')
      // The panel answers on: other requests, and the site's own once the flood is gone.
      expect((await call('GET', `/sites/${siteId}`)).status).toBe(200)
    } finally {
      rmSync(file, { force: true })
    }
    expect((await call('GET', wp('/plugins'))).status).toBe(200)
  })

  test('another customer’s site is 404; a token without site:shell is 403; a static site is not_a_wordpress_site', async () => {
    await expectProblem((await call('GET', wp(), undefined, otherToken)).response, 404, 'not_found')
    await expectProblem(
      (await call('POST', wp('/plugins/akismet/activate'), undefined, otherToken)).response,
      404,
      'not_found',
    )
    const reader = await tp.token({ scopes: ['site:read'] })
    expect((await call('GET', wp('/plugins'), undefined, reader)).status).toBe(403)
    await expectProblem(
      (await call('GET', `/sites/${staticSiteId}/wordpress`)).response,
      409,
      'not_a_wordpress_site',
    )
  })

  test('a site its node does not know is wordpress_unavailable (503)', async () => {
    const state = join(home(), 'state.json')
    renameSync(state, `${state}.away`)
    try {
      await expectProblem((await call('GET', wp())).response, 503, 'wordpress_unavailable')
    } finally {
      renameSync(`${state}.away`, state)
    }
  })

  test('a suspended site is refused with site_suspended', async () => {
    const suspended = await call<{ jobId: string }>('POST', `/sites/${siteId}/suspend`)
    expect(suspended.status).toBe(200)
    await finished(suspended.body.jobId)
    await expectProblem((await call('GET', wp('/plugins'))).response, 409, 'site_suspended')
    await expectProblem(
      (await call('PUT', wp('/maintenance'), { enabled: true })).response,
      409,
      'site_suspended',
    )
  })
})
