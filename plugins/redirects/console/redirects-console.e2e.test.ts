// A site's Redirects tab in Chromium, on the standard panel served over HTTP: a developer of the customer's team
// adds a redirect (one refused first, the reason at its field), changes it, deletes it, and saves response headers
// (a reserved one refused at its row’s name). Every page passes
// axe's WCAG 2.1 AA rules with nothing failing on it.

import { afterAll, beforeAll, expect, test } from 'bun:test'
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

let panel: TestPanel
let server: RunningServer
let browser: Browser
let siteId: string
const tag = crypto.randomUUID().slice(0, 8)
const developer = `dev-${tag}@redirects.test`

beforeAll(async () => {
  panel = await createTestPanel({ jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 } })
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
  server = servePanel(panel.panel, { hostname: '127.0.0.1', port: 0 })
  browser = await launchBrowser()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await panel?.panel.close()
})

async function signedIn(
  email: string,
  allow: RegExp[] = [],
): Promise<{ page: Page; failures: PageFailures }> {
  const page = await (await browser.newContext()).newPage()
  const failures = await collectPageFailures(page, { allow: [/GET \S+\/api\/v1\/me → 401$/, ...allow] })
  await page.goto(server.url.href)
  await page.getByLabel('E-mail').fill(email)
  await page.getByLabel('Password').fill(testPassword)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('navigation', { name: 'Areas' }).waitFor()
  return { page, failures }
}

test('a developer adds, changes and deletes a redirect and saves the site’s headers', async () => {
  const { page, failures } = await signedIn(developer, [
    /POST \S+\/redirects → 422$/,
    /PUT \S+\/headers → 422$/,
  ])
  await page.goto(new URL(`/sites/${siteId}`, server.url).href)
  await page.getByRole('link', { name: 'Redirects', exact: true }).click()
  await page.getByText('No redirects yet.').waitFor()
  await checkAccessibility(page, 'the Redirects tab, empty')

  await page.getByLabel('From path').fill('/old; return 200')
  await page.getByLabel('To', { exact: true }).fill('/new')
  await page.getByRole('button', { name: 'Add redirect' }).click()
  await page.getByText('The path is not one a redirect can match.').waitFor()
  expect(await page.getByLabel('From path').getAttribute('aria-invalid')).toBe('true')
  failures.clear()
  await page.getByLabel('From path').fill('/old')
  await page.getByLabel('Match').selectOption('prefix')
  await page.getByRole('button', { name: 'Add redirect' }).click()
  await page.getByRole('cell', { name: '/old', exact: true }).waitFor()

  await page.getByRole('button', { name: 'Edit /old' }).click()
  await page.getByLabel('To', { exact: true }).fill('https://example.org/moved/')
  await page.getByLabel('Status').selectOption('308')
  await page.getByRole('button', { name: 'Save redirect from /old' }).click()
  await page.getByRole('cell', { name: 'https://example.org/moved/' }).waitFor()
  await page.getByRole('cell', { name: '308' }).waitFor()
  await checkAccessibility(page, 'the Redirects tab with a redirect')

  await page.getByRole('button', { name: 'Delete redirect from /old' }).click()
  await page.getByRole('button', { name: 'Confirm delete redirect from /old' }).click()
  await page.getByText('No redirects yet.').waitFor()

  await page.getByRole('button', { name: 'Add X-Frame-Options' }).click()
  await page.getByRole('button', { name: 'Add a header' }).click()
  await page.getByLabel('Name').nth(1).fill('Set-Cookie')
  await page.getByLabel('Value').nth(1).fill('a=b')
  await page.getByRole('button', { name: 'Save headers' }).click()
  await page.getByText('This header is set by the node or belongs to the connection.').waitFor()
  failures.clear()
  await page.getByRole('button', { name: 'Remove header 2' }).click()
  await page.getByRole('button', { name: 'Save headers' }).click()
  await page.getByText('Saved.').waitFor()
  const token = await panel.token()
  const read = await panel.request('GET', `/api/v1/sites/${siteId}/headers`, { token })
  expect(((await read.json()) as { headers: unknown[] }).headers).toEqual([
    { name: 'X-Frame-Options', value: 'SAMEORIGIN' },
  ])
  await checkAccessibility(page, 'the Redirects tab with headers')
  await failures.assertClean('the Redirects tab')
}, 90_000)
