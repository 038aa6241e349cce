// A site's Logs tab in Chromium, on the standard panel served over HTTP (its local node laying out files: the test
// writes the lines nginx and PHP would): a developer of the customer's team reads the access log, narrows it to
// server errors, reads the PHP log, then follows the access log live (an entry written meanwhile appears), pauses
// (a new entry is held back and counted) and resumes. Every view passes axe's WCAG 2.1 AA rules.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import {
  checkAccessibility,
  collectPageFailures,
  launchBrowser,
  type PageFailures,
} from '../../../hosts/testing/browser.ts'
import {
  createTestPanel,
  createTestUser,
  type RunningServer,
  servePanel,
  type TestPanel,
  testPassword,
  waitFor,
} from '../../../hosts/testing/index.ts'
import { nodesPlugin } from '../../nodes/index.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'plinth-logs-console-'))
let panel: TestPanel
let server: RunningServer
let browser: Browser
let siteId: string
let logs: string
const tag = crypto.randomUUID().slice(0, 8)
const developer = `dev-${tag}@logs.test`

const access = (second: number, status: number, path: string) =>
  `198.51.100.7 - - [29/Nov/2026:10:00:${String(second).padStart(2, '0')} +0000] "GET ${path} HTTP/1.1" ${status} 10 "-" "probe/1.0" 200\n`

beforeAll(async () => {
  panel = await createTestPanel({
    plugins: [nodesPlugin({ dataDir })],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
  })
  panel.panel.start()
  const token = await panel.token()
  const created = await panel.request('POST', '/api/v1/customers', { token, body: { name: 'Acme' } })
  const customer = (await created.json()) as { id: string }
  await createTestUser(panel.panel.store.db, { email: developer, staffRole: null })
  const added = await panel.request('POST', `/api/v1/customers/${customer.id}/members`, {
    token,
    body: { email: developer, role: 'developer' },
  })
  expect(added.status).toBe(201)
  const site = await panel.request('POST', '/api/v1/sites', {
    token,
    body: { customerId: customer.id, name: 'shop', type: 'wordpress', domain: `shop-${tag}.example.test` },
  })
  siteId = ((await site.json()) as { id: string }).id
  await waitFor('the site to be active', async () => {
    const read = await panel.request('GET', `/api/v1/sites/${siteId}`, { token })
    if (((await read.json()) as { status: string }).status === 'active') return true
    await Bun.sleep(20)
    return null
  })
  logs = join(dataDir, 'sites', siteId, 'logs')
  mkdirSync(join(logs, 'php'), { recursive: true })
  writeFileSync(join(logs, 'access.log'), access(1, 200, '/home') + access(2, 502, '/checkout'))
  writeFileSync(
    join(logs, 'php', 'error.log'),
    '[29-Nov-2026 10:00:03 UTC] PHP Fatal error:  Uncaught Error: cart is empty in /htdocs/cart.php:4\n',
  )
  server = servePanel(panel.panel, { hostname: '127.0.0.1', port: 0 })
  browser = await launchBrowser()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await panel?.panel.close()
  rmSync(dataDir, { recursive: true, force: true })
})

async function signedIn(email: string): Promise<{ page: Page; failures: PageFailures }> {
  const page = await (await browser.newContext()).newPage()
  const failures = await collectPageFailures(page, { allow: [/GET \S+\/api\/v1\/me → 401$/] })
  await page.goto(server.url.href)
  await page.getByLabel('E-mail').fill(email)
  await page.getByLabel('Password').fill(testPassword)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('navigation', { name: 'Areas' }).waitFor()
  return { page, failures }
}

test('a developer reads, filters and follows a site’s logs', async () => {
  const { page, failures } = await signedIn(developer)
  await page.goto(new URL(`/sites/${siteId}`, server.url).href)
  await page.getByRole('link', { name: 'Logs', exact: true }).click()
  await page.getByRole('cell', { name: 'GET /home' }).waitFor()
  await page.getByRole('cell', { name: 'GET /checkout' }).waitFor()
  await checkAccessibility(page, 'the Logs tab')

  await page.getByLabel('Status').fill('5xx')
  await page.getByRole('button', { name: 'Apply' }).click()
  await page.getByRole('cell', { name: '502' }).waitFor()
  await page.getByRole('cell', { name: 'GET /home' }).waitFor({ state: 'detached' })

  await page.getByLabel('Log', { exact: true }).selectOption('php')
  await page.getByRole('cell', { name: /Uncaught Error: cart is empty/ }).waitFor()
  await page.getByRole('cell', { name: 'fatal' }).waitFor()

  await page.getByLabel('Log', { exact: true }).selectOption('access')
  await page.getByLabel('Status').fill('')
  await page.getByRole('button', { name: 'Apply' }).click()
  await page.getByLabel('Live').check()
  await page.getByText('Following: new entries appear as they are written.').waitFor()
  await page.getByRole('cell', { name: 'GET /checkout' }).waitFor()
  appendFileSync(join(logs, 'access.log'), access(4, 201, '/live-order'))
  await page.getByRole('cell', { name: 'GET /live-order' }).waitFor()
  await checkAccessibility(page, 'the Logs tab, live')

  await page.getByRole('button', { name: 'Pause' }).click()
  appendFileSync(join(logs, 'access.log'), access(5, 200, '/while-paused'))
  await page.getByRole('button', { name: 'Resume (1 new)' }).waitFor()
  expect(await page.getByRole('cell', { name: 'GET /while-paused' }).count()).toBe(0)
  await page.getByRole('button', { name: 'Resume (1 new)' }).click()
  await page.getByRole('cell', { name: 'GET /while-paused' }).waitFor()
  await failures.assertClean('the Logs tab')
}, 90_000)
