// A plugin's console page, end to end in Chromium: the standard panel with the support plugin mounted, served over
// HTTP; a developer of a customer's team (holding `support:read`) finds "Support" in the navigation and its page,
// a billing member (without it) finds neither, and is told the page is not theirs when they go to its address, as
// is platform staff (holding every scope, but the page is the portal's). Every page passes axe's WCAG 2.1 AA rules
// with nothing failing on it.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import {
  checkAccessibility,
  collectPageFailures,
  launchBrowser,
  type PageFailures,
} from '../../hosts/testing/browser.ts'
import {
  createTestPanel,
  createTestUser,
  type RunningServer,
  servePanel,
  type TestPanel,
  testPassword,
} from '../../hosts/testing/index.ts'
import { supportPlugin } from './index.ts'

let panel: TestPanel
let server: RunningServer
let browser: Browser
const people = { developer: 'dev@support.test', billing: 'billing@support.test' }

beforeAll(async () => {
  panel = await createTestPanel({
    plugins: [supportPlugin({ email: 'help@provider.test', hours: 'Always' })],
  })
  const token = await panel.token()
  const created = await panel.request('POST', '/api/v1/customers', { token, body: { name: 'Acme' } })
  const customer = (await created.json()) as { id: string }
  for (const [role, email] of Object.entries(people)) {
    await createTestUser(panel.panel.store.db, { email, staffRole: null })
    const added = await panel.request('POST', `/api/v1/customers/${customer.id}/members`, {
      token,
      body: { email, role },
    })
    expect(added.status).toBe(201)
  }
  server = servePanel(panel.panel, { hostname: '127.0.0.1', port: 0 })
  browser = await launchBrowser()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

/** `email` signed in in a browser of their own; the sign-in page's probe of `/me` is no failure. */
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

const supportLink = (page: Page) =>
  page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Support', exact: true })

test('a member holding support:read finds the plugin’s entry in the navigation and its page', async () => {
  const { page, failures } = await signedIn(people.developer)
  await supportLink(page).click()
  await page.getByRole('heading', { level: 1, name: 'Support' }).waitFor()
  await page.getByRole('link', { name: 'help@provider.test' }).waitFor()
  expect(await page.getByText('Always').count()).toBe(1)
  await checkAccessibility(page, 'the support page')
  await failures.assertClean('the support page')
}, 60_000)

test('a member without support:read sees no entry, and the page’s address says it is not theirs', async () => {
  const { page, failures } = await signedIn(people.billing)
  // The shell's own entries show; the plugin's does not.
  await page.getByRole('link', { name: 'API tokens', exact: true }).waitFor()
  expect(await supportLink(page).count()).toBe(0)
  await page.goto(new URL('support', server.url).href)
  await page.getByRole('heading', { level: 1, name: 'Not available to you' }).waitFor()
  expect(await page.getByText('support:read').count()).toBe(1)
  await checkAccessibility(page, 'the support page, refused')
  await failures.assertClean('the support page, refused')
}, 60_000)

test('staff, though holding every scope, find no entry and are told the page is the portal’s', async () => {
  const { page, failures } = await signedIn((await panel.staff()).email)
  await page.getByText('Operator console').waitFor()
  expect(await supportLink(page).count()).toBe(0)
  await page.goto(new URL('support', server.url).href)
  await page.getByRole('heading', { level: 1, name: 'Not available to you' }).waitFor()
  expect(await page.getByText('customer portal').count()).toBe(1)
  await checkAccessibility(page, 'the support page, for staff')
  await failures.assertClean('the support page, for staff')
}, 60_000)
