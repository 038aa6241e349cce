// The first WordPress site on a fresh installation, as a new user makes it: the documented node setup, `npm start`
// (the local node serving, with its own MariaDB), the README's first steps (a staff user and a token from the CLI, a
// customer), then `POST /api/v1/sites` with `type: "wordpress"` and nothing else: the front page is served by the
// local node and the administrator logs in with the password the answer showed. No database server is added by hand.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chmodSync } from 'node:fs'
import { join } from 'node:path'
import {
  apiClient,
  createProcessTracker,
  freePort,
  removeNodeLeftovers,
  type Standalone,
  tokenPattern,
} from './testing/index.ts'

const { tempDataDir, runCli, startStandalone, cleanup } = createProcessTracker('plinth-first-site-')
const dataDir = tempDataDir({ engine: 'sqlite' })
// The local node's own folder, beside the panel's (the default is `<DATA_DIR>-sites`): in a temporary folder the
// sites' users and nginx's workers pass through, as a checkout's folder is.
const sitesParent = tempDataDir()
chmodSync(sitesParent, 0o711)
const sitesDataDir = join(sitesParent, 'sites')
const sitesHttpPort = freePort()
const settings = {
  LOCAL_SITES: 'serve',
  SITES_DATA_DIR: sitesDataDir,
  SITES_HTTP_PORT: String(sitesHttpPort),
  SITES_HTTPS_PORT: String(freePort()),
  NODE_DATABASE_PORT: String(freePort()),
}
let panel: Standalone

afterAll(async () => {
  // The node's nginx, PHP-FPM and MariaDB outlive the panel, as a node's do: stopped here (by their pid files, before
  // the folders go), with its sites' users.
  removeNodeLeftovers(sitesDataDir)
  await cleanup()
})

beforeAll(async () => {
  // The documented node setup: on this machine (CI installs the same with it) there is nothing left to install.
  const setup = await runCli(dataDir, ['node', 'setup'], settings)
  expect(setup.exitCode).toBe(0)
  expect(setup.stdout).toContain('A serving node needs:')
  panel = await startStandalone(dataDir, settings)
}, 60_000)

describe('the first WordPress site on a fresh installation', () => {
  test('is served by the local node and its administrator logs in, after the README’s steps and one POST', async () => {
    const admin = await runCli(
      dataDir,
      ['admin', 'create', '--email', 'admin@example.com', '--password', 'correct horse battery'],
      settings,
    )
    expect(admin.exitCode).toBe(0)
    const token = (
      await runCli(dataDir, ['token', 'create', '--email', 'admin@example.com', '--scopes', '*'], settings)
    ).stdout
      .trim()
      .split('\n')
      .at(-1)
    expect(token).toMatch(tokenPattern)
    const call = apiClient(panel, token ?? '')
    const customer = await call<{ id: string }>('POST', '/customers', { name: 'Acme' })
    expect(customer.status).toBe(201)

    const posted = performance.now()
    const site = await call<{
      id: string
      status: string
      wordpress: { adminUser: string; adminPassword: string }
    }>('POST', '/sites', {
      customerId: customer.body.id,
      name: 'Acme Blog',
      type: 'wordpress',
      domain: 'blog.acme.test',
    })
    expect(site.status).toBe(201)
    // Nothing but reads of the site until it is served.
    let status = site.body.status
    for (const deadline = Date.now() + 120_000; status === 'provisioning' && Date.now() < deadline; ) {
      await Bun.sleep(200)
      status = (await call<{ status: string }>('GET', `/sites/${site.body.id}`)).body.status
    }
    expect(status).toBe('active')
    const front = await fetch(`http://127.0.0.1:${sitesHttpPort}/`, { headers: { host: 'blog.acme.test' } })
    expect(front.status).toBe(200)
    expect(await front.text()).toContain('<title>Acme Blog')
    console.log(`POST /sites to the served front page: ${Math.round(performance.now() - posted)} ms`)

    const login = await fetch(`http://127.0.0.1:${sitesHttpPort}/wp-login.php`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        host: 'blog.acme.test',
        cookie: 'wordpress_test_cookie=WP%20Cookie%20check',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        log: site.body.wordpress.adminUser,
        pwd: site.body.wordpress.adminPassword,
        'wp-submit': 'Log In',
        testcookie: '1',
      }),
    })
    expect(login.status).toBe(302)
    expect(login.headers.get('location')).toContain('/wp-admin')

    // The database went on the local node's own MariaDB, which the panel registered by itself.
    const servers = await call<{ items: { nodeId: string | null; databases: number }[] }>(
      'GET',
      '/database-servers',
    )
    expect(servers.body.items).toEqual([
      expect.objectContaining({ nodeId: expect.any(String), databases: 1 }),
    ])
  }, 180_000)
})
