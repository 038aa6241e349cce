// The plugin's console page, end to end in Chromium: the standard panel with the DNS zones plugin mounted, served
// over HTTP. A developer of a customer's team finds "DNS zones" in the navigation, adds a zone, adds records (a
// refused one shown at its field), deletes one and downloads the zone file; a billing member finds no entry and is
// told the page is not theirs. Every page passes axe's WCAG 2.1 AA rules with nothing failing on it.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
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
import { dnsZonesPlugin } from './index.ts'

let panel: TestPanel
let server: RunningServer
let browser: Browser
const people = { developer: 'dev@dns.test', billing: 'billing@dns.test' }

beforeAll(async () => {
  panel = await createTestPanel({ plugins: [dnsZonesPlugin({ nameservers: ['ns1.dns.test'] })] })
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
async function signedIn(
  email: string,
  allow: RegExp[] = [],
): Promise<{ page: Page; failures: PageFailures }> {
  const page = await (await browser.newContext({ acceptDownloads: true })).newPage()
  const failures = await collectPageFailures(page, { allow: [/GET \S+\/api\/v1\/me → 401$/, ...allow] })
  await page.goto(server.url.href)
  await page.getByLabel('E-mail').fill(email)
  await page.getByLabel('Password').fill(testPassword)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('navigation', { name: 'Areas' }).waitFor()
  return { page, failures }
}

const zonesLink = (page: Page) =>
  page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'DNS zones', exact: true })

/** Fills the add-record form and sends it. */
async function addRecord(page: Page, name: string, type: string, content: string) {
  await page.getByLabel('Name', { exact: true }).fill(name)
  await page.getByLabel('Type').selectOption(type)
  await page.getByLabel('Content').fill(content)
  await page.getByRole('button', { name: 'Add record' }).click()
}

test('a developer adds a zone and its records, deletes one, and downloads the zone file', async () => {
  // The refused record below answers 422, which the form shows at its field.
  const { page, failures } = await signedIn(people.developer, [/POST \S+\/records → 422$/])
  await zonesLink(page).click()
  await page.getByRole('heading', { level: 1, name: 'DNS zones' }).waitFor()
  await page.getByText('No DNS zones yet.').waitFor()
  await checkAccessibility(page, 'the zones page, empty')
  await page.getByLabel('Domain').fill('acme.example')
  await page.getByRole('button', { name: 'Add zone' }).click()
  await page.getByRole('heading', { level: 1, name: 'acme.example' }).waitFor()

  await addRecord(page, 'www', 'A', '192.0.2.10')
  await page.getByRole('cell', { name: '192.0.2.10' }).waitFor()
  await addRecord(page, 'mail', 'A', '192.0.2.300')
  await page.getByText('The content does not suit the record’s type.').waitFor()
  expect(await page.getByLabel('Content').getAttribute('aria-invalid')).toBe('true')
  failures.clear()
  await addRecord(page, '@', 'MX', '10 mail.acme.example')
  await page.getByRole('cell', { name: '10 mail.acme.example' }).waitFor()
  await addRecord(page, 'mail', 'A', '192.0.2.25')
  await page.getByRole('cell', { name: '192.0.2.25' }).waitFor()
  await checkAccessibility(page, 'a zone’s records')

  await page.getByRole('button', { name: 'Delete A www' }).click()
  await page.getByRole('button', { name: 'Confirm delete A www' }).click()
  await page.getByRole('cell', { name: '192.0.2.10' }).waitFor({ state: 'detached' })

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download zone file' }).click(),
  ])
  expect(download.suggestedFilename()).toBe('acme.example.zone')
  const file = readFileSync(await download.path(), 'utf8')
  expect(file).toContain('$ORIGIN acme.example.\n')
  expect(file).toContain('@ 3600 IN MX 10 mail.acme.example.\nmail 3600 IN A 192.0.2.25\n')
  expect(file).not.toContain('192.0.2.10')
  // The serial the page shows is the file's.
  const serial = /serial (\d+)/.exec(file)?.[1] ?? 'none'
  await page.getByText(`Serial ${serial}`).waitFor()
  await failures.assertClean('the zone page')
}, 90_000)

test('a billing member sees no entry, and the page’s address says it is not theirs', async () => {
  const { page, failures } = await signedIn(people.billing)
  await page.getByRole('link', { name: 'API tokens', exact: true }).waitFor()
  expect(await zonesLink(page).count()).toBe(0)
  await page.goto(new URL('dns-zones', server.url).href)
  await page.getByRole('heading', { level: 1, name: 'Not available to you' }).waitFor()
  expect(await page.getByText('dns:read').count()).toBe(1)
  await checkAccessibility(page, 'the zones page, refused')
  await failures.assertClean('the zones page, refused')
}, 60_000)
