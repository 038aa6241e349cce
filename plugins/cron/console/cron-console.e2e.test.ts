// A site's Cron tab in Chromium, on a site the panel's local node serves with its Unix user: staff type a schedule
// that is not one (the reason shown beside it), then a real one (its next runs previewed), create the job (refused at
// its timeout first), run it now and read its run's output (the site's uid), disable it, change its schedule, and
// delete it. Every state passes axe's WCAG 2.1 AA rules. Node side (nginx, Chromium): run once.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { definePlugin } from '../../../core/index.ts'
import { checkAccessibility, collectPageFailures, launchBrowser } from '../../../hosts/testing/browser.ts'
import {
  createTestPanel,
  freePort,
  type RunningServer,
  removeNodeLeftovers,
  servePanel,
  type TestPanel,
  testPassword,
  waitFor,
} from '../../../hosts/testing/index.ts'
import { nodesPlugin } from '../../nodes/index.ts'
import { siteTypes } from '../../sites/contract.ts'
import { cronPlugin } from '../index.ts'

const folder = mkdtempSync(join(tmpdir(), 'plinth-cron-console-'))
const sitesDir = join(folder, 'sites')
chmodSync(folder, 0o711)
let tp: TestPanel
let server: RunningServer
let browser: Browser
let siteId = ''

/** Sites of plain files (no database to make), for the test. */
const plainSites = definePlugin({
  name: 'plain-sites',
  version: '1.0.0',
  description: 'Plain sites, for the test.',
  requires: ['sites'],
  setup(context) {
    context.extensionPoint(siteTypes).add({ name: 'plain-test', description: 'Plain files.' })
  },
})

beforeAll(async () => {
  tp = await createTestPanel({
    plugins: [
      nodesPlugin({
        dataDir: join(folder, 'panel'),
        localServing: { dataDir: sitesDir, httpPort: freePort(), httpsPort: freePort() },
      }),
      plainSites,
      cronPlugin({ tickIntervalMs: 200 }),
    ],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  const token = await tp.token()
  const call = async (method: string, path: string, body?: unknown) =>
    (await tp.request(method, `/api/v1${path}`, { token, body })).json() as Promise<{
      id: string
      status: string
    }>
  const customer = await call('POST', '/customers', { name: 'Cron Console' })
  const domain = `cc-${crypto.randomUUID().slice(0, 8)}.example.test`
  siteId = (
    await call('POST', '/sites', { customerId: customer.id, name: 'Cron Site', type: 'plain-test', domain })
  ).id
  await waitFor(
    'the site to be active',
    async () => {
      if ((await call('GET', `/sites/${siteId}`)).status === 'active') return true
      await Bun.sleep(50)
      return null
    },
    60_000,
  )
  server = servePanel(tp.panel, { hostname: '127.0.0.1', port: 0 })
  browser = await launchBrowser()
}, 90_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await tp?.panel.close()
  removeNodeLeftovers(sitesDir)
  rmSync(folder, { recursive: true, force: true })
})

test('staff create a cron job with its schedule previewed, run it now, read its output, disable, edit and delete it', async () => {
  const page = await (await browser.newContext()).newPage()
  const failures = await collectPageFailures(page, {
    allow: [
      /GET \S+\/api\/v1\/me → 401$/,
      /GET \S+\/api\/v1\/cron-schedules\/next-runs\?\S+ → 422$/,
      /POST \S+\/api\/v1\/sites\/site_\w+\/cron-jobs → 422$/,
    ],
  })
  await page.goto(server.url.href)
  await page.getByLabel('E-mail').fill((await tp.staff()).email)
  await page.getByLabel('Password').fill(testPassword)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('navigation', { name: 'Areas' }).waitFor()
  await page.goto(new URL(`sites/${siteId}`, server.url).href)
  await page.getByRole('navigation', { name: 'Site pages' }).getByRole('link', { name: 'Cron' }).click()
  await page.getByRole('heading', { level: 1, name: /Cron jobs/ }).waitFor()
  await page.getByText('No cron jobs yet.').waitFor()
  await checkAccessibility(page, 'a site’s cron jobs, none yet')

  const form = page.getByTestId('new-cron-job')
  await form.getByLabel('Schedule').fill('61 * * * *')
  await page.getByText(/Not a schedule: .*outside 0–59/).waitFor()
  await form.getByLabel('Schedule').fill('*/10 * * * *')
  const preview = page.getByTestId('schedule-preview')
  await preview.getByText('Next runs:').waitFor()
  expect(await preview.locator('li').count()).toBe(5)
  await checkAccessibility(page, 'a new cron job, its schedule previewed')
  // A timeout of 0 is refused at its field.
  await form.getByLabel('Command').fill('id -u; echo cron-from-console')
  await form.getByLabel('Timeout (seconds)').fill('0')
  await form.getByRole('button', { name: 'Create cron job' }).click()
  await form.locator('.field.has-error').first().waitFor()
  await form.getByLabel('Timeout (seconds)').fill('60')
  await form.getByRole('button', { name: 'Create cron job' }).click()
  const row = page.getByRole('row', { name: /\*\/10 \* \* \* \*/ })
  await row.waitFor()

  await row.getByRole('button', { name: 'Run now' }).click()
  const runs = page.getByRole('table', { name: /Runs of/ })
  await runs.getByText('succeeded').waitFor({ timeout: 20_000 })
  await runs.locator('summary').click()
  const uid = statSync(join(sitesDir, 'sites', siteId, 'htdocs')).uid
  const output = await runs.locator('pre').textContent()
  expect(output?.trim().split('\n')).toEqual([String(uid), 'cron-from-console'])
  await checkAccessibility(page, 'a cron job’s runs, one with its output')

  await row.getByRole('button', { name: 'Disable' }).click()
  await row.getByText('disabled').waitFor()
  await row.getByRole('button', { name: 'Edit' }).click()
  const edit = page.getByTestId('edit-cron-job')
  await edit.getByLabel('Schedule').fill('@hourly')
  await edit.getByLabel('Enabled').check()
  await edit.getByRole('button', { name: 'Save cron job' }).click()
  const hourly = page.getByRole('row', { name: /@hourly/ })
  await hourly.getByText(/^next /).waitFor()
  await hourly.getByRole('button', { name: 'Delete' }).click()
  await hourly.getByRole('button', { name: 'Confirm delete @hourly' }).click()
  await page.getByText('No cron jobs yet.').waitFor()
  await failures.assertClean('the Cron tab')
}, 90_000)
