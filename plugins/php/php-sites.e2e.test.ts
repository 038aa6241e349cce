// `php` and `static` sites and a site's PHP settings on a real node (this machine's nginx and PHP-FPM, through a
// panel's local node): a `php` site runs its PHP from its document root; a `static` site serves its files with no
// PHP-FPM master at all, and answers 404 for a `.php` file, never running or sending it; a setting changed through
// the API shows in `phpinfo()`; a value the panel refuses, or a spec the node refuses, changes nothing served; in
// Chromium, the console makes a php site with its document root and changes its PHP in the site's PHP tab, a refusal
// shown at its field, every page passing axe's WCAG 2.1 AA rules. Node side: runs once, not in both store halves.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  chmodSync,
  existsSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { definePlugin, type PluginContext } from '../../core/index.ts'
import { checkAccessibility, collectPageFailures, launchBrowser } from '../../hosts/testing/browser.ts'
import {
  makeHierarchy,
  type RunningServer,
  requestSite,
  servePanel,
  startWordPressPanel,
  testPassword,
  type WordPressPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import { nodeCommand, nodeDirectory, type SiteServing } from '../nodes/contract.ts'

/** The test's hold on a plugin context, to send the node a spec the panel would never make. */
let context: PluginContext | undefined
const contextHolder = definePlugin({
  name: 'php-e2e-context',
  version: '1.0.0',
  description: 'Lends the test a plugin context.',
  requires: ['nodes'],
  setup(given) {
    context = given
  },
})

const tag = crypto.randomUUID().slice(0, 8)
let wp: WordPressPanel
let customerId: string

beforeAll(async () => {
  wp = await startWordPressPanel({ prefix: 'plinth-php-', tag, plugins: [contextHolder] })
  customerId = ((await (await call('POST', '/customers', { name: 'PHP' })).json()) as { id: string }).id
}, 60_000)
let server: RunningServer | undefined
let browser: Browser | undefined
afterAll(async () => {
  await browser?.close()
  server?.stop()
  await wp?.close()
})

const call = (method: string, path: string, body?: unknown) =>
  wp.tp.request(method, `/api/v1${path}`, { token: wp.token, ...(body === undefined ? {} : { body }) })

/** Waits for job `jobId` to end; answers it. */
async function jobEnded(jobId: string) {
  return waitFor(
    `job ${jobId}`,
    async () => {
      const job = (await (await call('GET', `/jobs/${jobId}`)).json()) as { status: string; error: unknown }
      if (job.status === 'succeeded' || job.status === 'failed') return job
      await Bun.sleep(50)
      return null
    },
    30_000,
  )
}

/** A new site of `type` made and provisioned; its id and domain. */
async function newSite(type: string, extra: Record<string, unknown> = {}) {
  const domain = `${type}-${crypto.randomUUID().slice(0, 6)}.example.test`
  const response = await call('POST', '/sites', { customerId, name: type, type, domain, ...extra })
  expect(response.status).toBe(201)
  const site = (await response.json()) as { id: string; jobId: string }
  expect(await jobEnded(site.jobId)).toMatchObject({ status: 'succeeded' })
  return { id: site.id, domain }
}

/** Writes a file of the site through the files API (`path` absolute within the site). */
async function putFile(siteId: string, path: string, content: string) {
  const response = await wp.tp.panel.handle(
    new Request(`http://panel.test/api/v1/sites/${siteId}/files/content?path=${encodeURIComponent(path)}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${wp.token}`, 'content-type': 'application/octet-stream' },
      body: content,
    }),
  )
  expect([200, 201]).toContain(response.status)
}

const get = async (domain: string, path: string) => {
  const response = await requestSite(wp.httpPort, domain, path)
  return { status: response.status, text: await response.text(), type: response.headers.get('content-type') }
}

/** A configuration value as `phpInfo()` shows it (its local value, the first column). */
const infoValue = (html: string, name: string) =>
  new RegExp(`<td class="e">${name}\\s*</td><td class="v">([^<]*?)\\s*</td>`).exec(html)?.[1]

describe('a php site', () => {
  test('runs PHP from its document root, a folder of htdocs/, with a default index its owner replaces', async () => {
    const nodes = (await (await call('GET', '/nodes')).json()) as {
      items: { agent: { capabilities: { phpVersions?: string[] } | null } }[]
    }
    expect(nodes.items[0]?.agent.capabilities?.phpVersions).toContain('8.2')
    const site = await newSite('php', { php: { root: 'public' } })
    const index = await get(site.domain, '/')
    expect(index.status).toBe(200)
    expect(index.text).toMatch(/PHP 8\.2\.\d+ runs this page/)
    await putFile(site.id, '/htdocs/public/sum.php', '<?php echo "sum=", 2 + 3, " as ", get_current_user();')
    expect((await get(site.domain, '/sum.php')).text).toStartWith('sum=5')
    // Above the document root: not served.
    await putFile(site.id, '/htdocs/secret.php', '<?php echo "secret";')
    expect((await get(site.domain, '/secret.php')).status).toBe(404)
    // What no file answers goes to its front controller, index.php.
    await putFile(site.id, '/htdocs/public/index.php', '<?php echo "front:", $_SERVER["REQUEST_URI"];')
    expect((await get(site.domain, '/any/route?x=1')).text).toBe('front:/any/route?x=1')
    // A later apply (a PHP change) keeps the owner's index.
    const patched = await call('PATCH', `/sites/${site.id}/php`, { settings: { max_input_vars: 2000 } })
    expect(await jobEnded(((await patched.json()) as { jobId: string }).jobId)).toMatchObject({
      status: 'succeeded',
    })
    expect((await get(site.domain, '/')).text).toBe('front:/')
  }, 30_000)
})

describe('a static site', () => {
  test('serves its files by nginx alone: no PHP-FPM master, and a .php file answers 404 unrun and unsent', async () => {
    const site = await newSite('static')
    const index = await get(site.domain, '/')
    expect(index.status).toBe(200)
    expect(index.text).toContain('served as plain files')
    // Not a master, not even its folder.
    expect(existsSync(join(wp.sitesDir, 'php', 'sites', site.id))).toBe(false)
    await putFile(site.id, '/htdocs/run.php', '<?php echo "ran" . "-php";')
    const php = await get(site.domain, '/run.php')
    expect(php.status).toBe(404)
    expect(php.text).not.toContain('ran-php')
    expect(php.text).not.toContain('<?php')
    // A directory holding only an index.php is no index either.
    expect((await call('POST', `/sites/${site.id}/files/directories`, { path: '/htdocs/app' })).status).toBe(
      201,
    )
    await putFile(site.id, '/htdocs/app/index.php', '<?php echo "ran" . "-php";')
    expect((await get(site.domain, '/app/')).text).not.toContain('php')
    await putFile(site.id, '/htdocs/page.html', '<p>hello</p>')
    expect(await get(site.domain, '/page.html')).toMatchObject({ status: 200, text: '<p>hello</p>' })
    expect((await call('GET', `/sites/${site.id}/php`)).status).toBe(409)
    // Its server block rewritten from what the node recorded (a certificate attached) is still served without PHP.
    const chain = await makeHierarchy([site.domain])
    const uploaded = await call('POST', '/certificates', {
      customerId,
      certificatePem: chain.leaf.pem,
      privateKeyPem: chain.leaf.keyPem,
      chainPem: chain.intermediate.pem + chain.root.pem,
    })
    expect(uploaded.status).toBe(201)
    const certificateId = ((await uploaded.json()) as { id: string }).id
    const attached = await call('PUT', `/sites/${site.id}/certificate`, { certificateId })
    expect(attached.status).toBe(202)
    expect(await jobEnded(((await attached.json()) as { jobId: string }).jobId)).toMatchObject({
      status: 'succeeded',
    })
    expect((await get(site.domain, '/run.php')).status).toBe(404)
    expect((await get(site.domain, '/app/')).text).not.toContain('php')
  }, 30_000)
})

describe('a document root', () => {
  test('swapped by the site’s user for a link to files not theirs serves none of them', async () => {
    const site = await newSite('static', { static: { root: 'public' } })
    await putFile(site.id, '/htdocs/public/own.html', 'own page')
    expect(await get(site.domain, '/own.html')).toMatchObject({ status: 200, text: 'own page' })
    // Files of root's (another site's, the node's) that nginx's workers could read.
    const foreign = join(wp.sitesDir, `foreign-${tag}`)
    mkdirSync(foreign, { recursive: true })
    chmodSync(foreign, 0o755)
    writeFileSync(join(foreign, 'leak.txt'), 'not this site’s')
    chmodSync(join(foreign, 'leak.txt'), 0o644)
    // What the site's user may do in its own htdocs/: move its document root aside, and link another folder there.
    const htdocs = join(wp.sitesDir, 'sites', site.id, 'htdocs')
    const { uid, gid } = lstatSync(htdocs)
    renameSync(join(htdocs, 'public'), join(htdocs, 'public-old'))
    symlinkSync(foreign, join(htdocs, 'public'))
    lchownSync(join(htdocs, 'public'), uid, gid)
    const leak = await get(site.domain, '/leak.txt')
    expect(leak.text).not.toContain('not this site')
    expect([403, 404]).toContain(leak.status)
    // A link to a folder of its own still serves.
    renameSync(join(htdocs, 'public'), join(htdocs, 'public-link'))
    symlinkSync(join(htdocs, 'public-old'), join(htdocs, 'public'))
    lchownSync(join(htdocs, 'public'), uid, gid)
    expect(await get(site.domain, '/own.html')).toMatchObject({ status: 200, text: 'own page' })
  }, 30_000)
})

describe('a site’s PHP settings', () => {
  test('changed through the API show in phpinfo(); a refused value, or a spec the node refuses, changes nothing', async () => {
    const site = await newSite('php')
    await putFile(site.id, '/htdocs/info.php', '<?php phpinfo(INFO_CONFIGURATION);')
    const before = (await get(site.domain, '/info.php')).text
    expect(infoValue(before, 'upload_max_filesize')).toBe('64M')
    expect(infoValue(before, 'memory_limit')).toBe('128M')

    const response = await call('PATCH', `/sites/${site.id}/php`, {
      settings: {
        memory_limit: '256M',
        max_input_vars: 3000,
        display_errors: true,
        upload_max_filesize: '100M',
        post_max_size: '100M',
      },
    })
    expect(response.status).toBe(200)
    const { jobId } = (await response.json()) as { jobId: string }
    expect(await jobEnded(jobId)).toMatchObject({ status: 'succeeded' })
    const after = (await get(site.domain, '/info.php')).text
    expect(infoValue(after, 'memory_limit')).toBe('256M')
    expect(infoValue(after, 'max_input_vars')).toBe('3000')
    expect(infoValue(after, 'display_errors')).toBe('On')
    expect(infoValue(after, 'upload_max_filesize')).toBe('100M')
    // The site's code cannot take it back (php_admin_value).
    await putFile(
      site.id,
      '/htdocs/raise.php',
      '<?php var_dump(ini_set("memory_limit", "2G")); echo ini_get("memory_limit");',
    )
    expect((await get(site.domain, '/raise.php')).text).toContain('256M')
    // nginx takes a body as large as post_max_size (its default was 64 MB).
    const blocks = join(wp.sitesDir, 'nginx', 'sites')
    const block = readdirSync(blocks).find((name) => name.includes(site.id)) ?? ''
    expect(readFileSync(join(blocks, block), 'utf8')).toContain('client_max_body_size 100M;')
    const conf = join(wp.sitesDir, 'php', 'sites', site.id, 'php-fpm.conf')
    const pool = readFileSync(conf, 'utf8')

    // Refused by the panel: nothing is stored, nothing reaches the node.
    const refused = await call('PATCH', `/sites/${site.id}/php`, { settings: { memory_limit: '99999G' } })
    expect(refused.status).toBe(422)
    expect(readFileSync(conf, 'utf8')).toBe(pool)

    // Refused by the node: a spec no panel would send (a newline into the pool, a version it lacks) fails before
    // anything is written, and the site goes on serving as it was.
    const held = context
    if (!held) throw new Error('no context')
    const nodes = held.use(nodeDirectory)
    const read = (await (await call('GET', `/sites/${site.id}`)).json()) as {
      handle: string
      nodeId: string
    }
    const node = await nodes.find(read.nodeId)
    if (!node) throw new Error('no node')
    const spec = {
      id: site.id,
      handle: read.handle,
      domain: site.domain,
      type: 'php',
      customerId,
      diskMB: null,
    }
    const attacks = [
      { phpSettings: { memory_limit: '1G\nphp_admin_value[disable_functions] = ' } },
      { phpSettings: { auto_prepend_file: '/etc/passwd' } },
      { phpSettings: { display_errors: 'yes"' } },
      { root: '../../..' },
      { phpVersion: '8.2"' },
    ]
    for (const serving of attacks)
      await expect(
        nodes.send(
          node,
          nodeCommand('update', { ...spec, serving: { php: true, ...(serving as SiteServing) } }),
          AbortSignal.timeout(10_000),
        ),
      ).rejects.toMatchObject({ code: 'unsafe_site_spec' })
    const missing = nodes.send(
      node,
      nodeCommand('update', { ...spec, serving: { php: true, phpVersion: '5.6' } }),
      AbortSignal.timeout(10_000),
    )
    await expect(missing).rejects.toMatchObject({ code: 'php_version_unavailable' })
    expect(readFileSync(conf, 'utf8')).toBe(pool)
    expect(infoValue((await get(site.domain, '/info.php')).text, 'memory_limit')).toBe('256M')
  }, 40_000)
})

describe('the console', () => {
  test('makes a php site with its document root, and changes its PHP in the site’s PHP tab, refusals at their fields', async () => {
    server = servePanel(wp.tp.panel, { hostname: '127.0.0.1', port: 0 })
    browser = await launchBrowser()
    const page = await (await browser.newContext()).newPage()
    const failures = await collectPageFailures(page, {
      allow: [/GET \S+\/api\/v1\/me → 401$/, /PATCH \S+\/api\/v1\/sites\/site_\w+\/php → 422$/],
    })
    await page.goto(server.url.href)
    await page.getByLabel('E-mail').fill((await wp.tp.staff()).email)
    await page.getByLabel('Password').fill(testPassword)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('navigation', { name: 'Areas' }).waitFor()

    const domain = `console-${crypto.randomUUID().slice(0, 6)}.example.test`
    await page.goto(new URL('sites/new', server.url).href)
    await page.getByLabel('Customer').selectOption(customerId)
    await page.getByLabel('Name').fill('Console app')
    await page.getByLabel('Domain').fill(domain)
    await page.getByLabel('Type').selectOption('php')
    await page.getByLabel('Document root (optional)').fill('public')
    await checkAccessibility(page, 'a new php site with its document root')
    await page.getByRole('button', { name: 'Create site' }).click()
    await page.getByRole('heading', { name: 'Site created' }).waitFor()
    const sites = (await (await call('GET', `/sites?customerId=${customerId}&limit=100`)).json()) as {
      items: { id: string; domain: string; jobId: string | null }[]
    }
    const made = sites.items.find((item) => item.domain === domain)
    if (!made) throw new Error('the console made no site')
    expect(await jobEnded(made.jobId ?? '')).toMatchObject({ status: 'succeeded' })
    expect((await get(domain, '/')).text).toMatch(/PHP 8\.2\.\d+ runs this page/)

    await page.goto(new URL(`sites/${made.id}/php`, server.url).href)
    const memory = page.getByLabel('Memory limit')
    await memory.fill('9G')
    await page.getByRole('button', { name: 'Save PHP settings' }).click()
    await page.getByText('memory_limit takes 16M to 8192M.').first().waitFor()
    expect(await memory.getAttribute('aria-invalid')).toBe('true')
    await checkAccessibility(page, 'a PHP setting refused at its field')
    await memory.fill('256M')
    await page.getByLabel('PHP version').selectOption('8.2')
    await page.getByRole('button', { name: 'Save PHP settings' }).click()
    await page.getByText('Saved.').waitFor()
    await page.locator('[data-setting="memory_limit"]', { hasText: '256M (set for this site)' }).waitFor()
    const php = (await (await call('GET', `/sites/${made.id}/php`)).json()) as {
      ownVersion: string | null
      settings: Record<string, unknown>
    }
    expect(php).toMatchObject({ ownVersion: '8.2', settings: { memory_limit: '256M' } })
    await checkAccessibility(page, 'a site’s PHP saved')
    await failures.assertClean('the PHP tab')
  }, 60_000)
})
