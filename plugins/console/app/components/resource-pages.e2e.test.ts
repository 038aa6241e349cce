// The kit's declared pages in Chromium, through a standard page declared with `resourcePages` (the brands list;
// examples/dns-zones' test walks a declared item page): the create form is the operation's (its field, its
// refusal shown there, shown only to callers holding its scope), a created item's page opens, and the list's first
// column links to each item. Every page passes axe's WCAG 2.1 AA rules with nothing failing on it.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import {
  checkAccessibility,
  collectPageFailures,
  launchBrowser,
  type PageFailures,
} from '../../../../hosts/testing/browser.ts'
import {
  createTestPanel,
  createTestUser,
  type RunningServer,
  servePanel,
  type TestPanel,
  testPassword,
} from '../../../../hosts/testing/index.ts'

let tp: TestPanel
let server: RunningServer
let browser: Browser

beforeAll(async () => {
  tp = await createTestPanel()
  server = servePanel(tp.panel, { hostname: '127.0.0.1', port: 0 })
  browser = await launchBrowser()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await tp?.panel.close()
})

/** `email` signed in in a browser of their own, at the brands list. */
async function atBrands(
  email: string,
  allow: RegExp[] = [],
): Promise<{ page: Page; failures: PageFailures }> {
  const page = await (await browser.newContext()).newPage()
  const failures = await collectPageFailures(page, { allow: [/GET \S+\/api\/v1\/me → 401$/, ...allow] })
  await page.goto(server.url.href)
  await page.getByLabel('E-mail').fill(email)
  await page.getByLabel('Password').fill(testPassword)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page
    .getByRole('navigation', { name: 'Areas' })
    .getByRole('link', { name: 'Brands', exact: true })
    .click()
  await page.getByRole('heading', { level: 1, name: 'Brands' }).waitFor()
  return { page, failures }
}

test('platform staff create a brand with the form its operation makes, and find it linked in the list', async () => {
  const { page, failures } = await atBrands((await tp.staff()).email, [/POST \S+\/api\/v1\/brands → 422$/])
  const name = page.getByLabel('Name', { exact: true })
  // The field's hint is the body field's description in the served document.
  await page.getByText('Display name, unique.').waitFor()
  await checkAccessibility(page, 'the brands list')
  await page.getByRole('button', { name: 'Create brand' }).click()
  await name.and(page.locator('[aria-invalid="true"]')).waitFor()
  failures.clear()
  await name.fill('Gamma Hosting')
  await page.getByRole('button', { name: 'Create brand' }).click()
  await page.getByRole('heading', { level: 1, name: 'Gamma Hosting' }).waitFor()
  const id = new URL(page.url()).pathname.split('/').at(-1) ?? ''
  expect(id).toStartWith('brd_')

  await page.getByRole('link', { name: 'Brands', exact: true }).first().click()
  await page.getByRole('table').getByRole('link', { name: 'Gamma Hosting' }).click()
  await page.waitForURL((url) => url.pathname === `/brands/${id}`)
  await failures.assertClean('the brands list')
}, 60_000)

test('brand staff, who may not create brands, see the list without the form', async () => {
  const token = await tp.token()
  const created = await tp.request('POST', '/api/v1/brands', { token, body: { name: 'Delta Hosting' } })
  const brand = (await created.json()) as { id: string }
  const email = 'brand-staff@delta.test'
  await createTestUser(tp.panel.store.db, { email, staffRole: 'brand', brandId: brand.id })
  const { page, failures } = await atBrands(email)
  await page.getByRole('table').getByRole('link', { name: 'Delta Hosting' }).waitFor()
  // The form waits for the document, then says nothing to a caller without `brand:create`.
  await page.getByRole('status').waitFor({ state: 'detached' })
  expect(await page.getByRole('button', { name: 'Create brand' }).count()).toBe(0)
  await checkAccessibility(page, 'the brands list, read only')
  await failures.assertClean('the brands list, read only')
}, 60_000)
