// A site's Cache tab in Chromium: staff turn the page cache on with a TTL and a bypass cookie (a bad cookie name
// refused at its field first), the API reads it back, and purge some paths and then everything (asked twice), each
// purge's result said. The local node lays out files only, so its purges remove nothing. Every state passes axe's
// WCAG 2.1 AA rules with nothing failing on the page.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { checkAccessibility, collectPageFailures, launchBrowser } from '../../../hosts/testing/browser.ts'
import {
  createTestPanel,
  type RunningServer,
  servePanel,
  type TestPanel,
  testPassword,
  waitFor,
} from '../../../hosts/testing/index.ts'
import type { SiteCache } from '../contract.ts'

let tp: TestPanel
let server: RunningServer
let browser: Browser
let token: string
let siteId: string

beforeAll(async () => {
  tp = await createTestPanel({ jobs: { pollIntervalMs: 10, retryBaseMs: 100, retryMaxMs: 200 } })
  tp.panel.start()
  token = await tp.token()
  const customer = await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Acme' } })
  const customerId = ((await customer.json()) as { id: string }).id
  const created = await tp.request('POST', '/api/v1/sites', {
    token,
    body: { customerId, name: 'Cached shop', type: 'wordpress', domain: 'cached-shop.example.com' },
  })
  siteId = ((await created.json()) as { id: string }).id
  await waitFor('the site to be active', async () => {
    const read = await tp.request('GET', `/api/v1/sites/${siteId}`, { token })
    return ((await read.json()) as { status: string }).status === 'active' || null
  })
  server = servePanel(tp.panel, { hostname: '127.0.0.1', port: 0 })
  browser = await launchBrowser()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await tp?.panel.close()
})

test('staff turn a site’s page cache on and purge it from its Cache tab', async () => {
  const page = await (await browser.newContext()).newPage()
  const failures = await collectPageFailures(page, {
    allow: [/GET \S+\/api\/v1\/me → 401$/, /PATCH \S+\/cache → 422$/],
  })
  await page.goto(server.url.href)
  await page.getByLabel('E-mail').fill((await tp.staff()).email)
  await page.getByLabel('Password').fill(testPassword)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('navigation', { name: 'Areas' }).waitFor()
  await page.goto(new URL(`sites/${siteId}`, server.url).href)
  await page.getByRole('link', { name: 'Cache' }).click()
  const form = page.getByTestId('cache-form')
  await form.waitFor()
  await checkAccessibility(page, 'a site’s page cache, off')

  await form.getByLabel('Cache pages').check()
  await form.getByLabel('Keep pages for (seconds)').fill('120')
  await form.getByLabel('Bypass cookies').fill('my_session\nbad;name')
  await form.getByRole('button', { name: 'Save cache settings' }).click()
  await form.getByText('“bad;name”').waitFor()
  await checkAccessibility(page, 'a bad bypass cookie refused at its field')
  await form.getByLabel('Bypass cookies').fill('my_session\ncart_*')
  await form.getByRole('button', { name: 'Save cache settings' }).click()
  await page.getByText('Saved.').waitFor()
  const stored = (await (
    await tp.request('GET', `/api/v1/sites/${siteId}/cache`, { token })
  ).json()) as SiteCache
  expect(stored).toMatchObject({ enabled: true, ttlSeconds: 120, bypassCookies: ['my_session', 'cart_*'] })

  const purge = page.getByTestId('cache-purge-form')
  await purge.getByLabel('Paths').fill('/about/\n/feed/')
  await purge.getByRole('button', { name: 'Purge these paths' }).click()
  await page.getByTestId('cache-purged').getByText('Purged /about/, /feed/').waitFor()
  await page.getByRole('button', { name: 'Purge everything' }).click()
  await page.getByRole('button', { name: 'Confirm: purge every page' }).click()
  await page.getByTestId('cache-purged').getByText('Purged every page').waitFor()
  await checkAccessibility(page, 'a site’s page cache, on and purged')
  await failures.assertClean('the Cache tab')
}, 60_000)
