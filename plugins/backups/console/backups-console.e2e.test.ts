// A site's backups in Chromium, on a real WordPress site served by this machine's nginx, PHP-FPM and MariaDB through
// the panel's local node: staff add a REST target (a wrong password refused at its field by the target's check,
// then kept as the default), are refused its delete while it is the default (the API's reason said), make the
// installation's local target the default again and see the overdue list; a customer's developer opens the site's
// Backups tab, backs it up and watches the job complete (the last good backup's age then shown), downloads it (a
// gzip archive), opens the restore of its database, reads the preview of what will change, restores it (a post
// written since is gone), and undoes the restore with the pre-restore backup (the post is back); a billing member
// finds no backups, a developer no staff pages; staff set the site's own policy (refused at a field first), see
// where each member comes from, and reset it; staff restore into a new site on a chosen node (the preview naming
// both), after a path out of the site was refused at the paths field. Every page passes axe's WCAG 2.1 AA rules,
// with nothing failing. Node side (restic, nginx, MariaDB, Chromium): run once, not in both store halves.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Connection, RowDataPacket } from 'mysql2/promise'
import type { Browser, Page } from 'playwright-core'
import {
  checkAccessibility,
  collectPageFailures,
  launchBrowser,
  type PageFailures,
} from '../../../hosts/testing/browser.ts'
import {
  createTestUser,
  type RunningServer,
  servePanel,
  startWordPressPanel,
  type TestPanel,
  testPassword,
  type WordPressPanel,
  waitFor,
} from '../../../hosts/testing/index.ts'
import { type RestPeer, startRestServer } from '../testing/rest-server.ts'

const tag = crypto.randomUUID().slice(0, 8)
const domain = `bk-${tag}.example.test`
const developer = `dev-${tag}@acme.test`

let wp: WordPressPanel
let tp: TestPanel
let server: RunningServer
let browser: Browser
let rest: RestPeer
let root: Connection
let token: string
let siteId = ''
let databaseName = ''
let customerId = ''

async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await tp.request(method, `/api/v1${path}`, { token, body })
  const text = await response.text()
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T }
}

async function jobDone(jobId: string): Promise<void> {
  const job = await waitFor(
    `job ${jobId}`,
    async () => {
      const read = (await call<{ status: string; error: unknown }>('GET', `/jobs/${jobId}`)).body
      return read.status === 'succeeded' || read.status === 'failed' ? read : null
    },
    180_000,
  )
  expect(job).toMatchObject({ status: 'succeeded' })
}

/** The titles of the site's WordPress posts, read from its database. */
async function postTitles(): Promise<string[]> {
  const [rows] = await root.query<RowDataPacket[]>(
    `SELECT post_title FROM \`${databaseName}\`.wp_posts WHERE post_type = 'post' AND post_status = 'publish'`,
  )
  return rows.map((row) => String(row.post_title)).sort()
}

beforeAll(async () => {
  wp = await startWordPressPanel({ prefix: 'plinth-backups-console-', tag })
  ;({ tp, token, root } = wp)
  const customer = await call<{ id: string }>('POST', '/customers', { name: 'Acme' })
  customerId = customer.body.id
  ;({ siteId, databaseName } = await wp.newWordPressSite(customer.body.id, 'Acme Blog', domain))
  await createTestUser(tp.panel.store.db, { email: developer, staffRole: null })
  const added = await call('POST', `/customers/${customer.body.id}/members`, {
    email: developer,
    role: 'developer',
  })
  expect(added.status).toBe(201)
  rest = await startRestServer({ users: [{ username: 'push', password: `right-${tag}` }] })
  server = servePanel(tp.panel, { hostname: '127.0.0.1', port: 0 })
  browser = await launchBrowser()
}, 240_000)

afterAll(async () => {
  await browser?.close()
  // Before the server stops (stopping it drains the panel): the customer's sites (the clone too) deleted, and the
  // names of their databases kept to drop what their deletion did not get to.
  const names: string[] = []
  if (customerId) {
    const databases = await call<{ items: { name: string }[] }>('GET', `/databases?customerId=${customerId}`)
    names.push(...(databases.body?.items ?? []).map((database) => database.name))
    const sites = await call<{ items: { id: string }[] }>('GET', `/sites?customerId=${customerId}`)
    for (const site of sites.body?.items ?? []) {
      const deleted = await call<{ jobId: string }>('DELETE', `/sites/${site.id}`).catch(() => null)
      if (deleted?.body?.jobId) await jobDone(deleted.body.jobId).catch(() => {})
    }
  }
  await server?.stop()
  await rest?.stop()
  for (const name of names) {
    await root?.query(`DROP DATABASE IF EXISTS \`${name}\``).catch(() => {})
    await root
      ?.query('DROP USER IF EXISTS ?@?, ?@?, ?@?', [name, '%', name, 'localhost', name, '127.0.0.1'])
      .catch(() => {})
  }
  await wp?.close()
}, 180_000)

/** Staff (or the user with `email`) signed in in a browser of their own, at `path`. */
async function signedIn(
  path: string,
  email?: string,
  allow: RegExp[] = [],
): Promise<{ page: Page; failures: PageFailures }> {
  const page = await (await browser.newContext()).newPage()
  const failures = await collectPageFailures(page, { allow: [/GET \S+\/api\/v1\/me → 401$/, ...allow] })
  await page.goto(server.url.href)
  await page.getByLabel('E-mail').fill(email ?? (await tp.staff()).email)
  await page.getByLabel('Password').fill(testPassword)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('navigation', { name: 'Areas' }).waitFor()
  await page.goto(new URL(path, server.url).href)
  return { page, failures }
}

test('staff add a REST target (refused at the password first), make it the default, and are refused its delete', async () => {
  const { page, failures } = await signedIn('backup-targets', undefined, [
    /POST \S+\/api\/v1\/backup-targets → 422$/,
    /DELETE \S+\/api\/v1\/backup-targets\/bkt_\w+ → 409$/,
  ])
  await page.getByRole('heading', { level: 1, name: 'Backup targets' }).waitFor()
  // A fresh installation backs up to each site's node.
  const local = page.getByRole('row', { name: /Each site’s node/ })
  await local.waitFor()
  expect(await local.textContent()).toContain('Default')
  await checkAccessibility(page, 'the backup targets, the installation’s own')

  await page.getByRole('link', { name: 'Add backup target' }).click()
  const form = page.getByTestId('backup-target-form')
  await form.getByLabel('Name').fill('offsite')
  await form.getByLabel('Kind').selectOption('rest')
  await form.getByLabel('URL').fill(rest.url)
  await form.getByLabel('Username', { exact: true }).fill('push')
  await form.getByLabel('Password', { exact: true }).fill('wrong')
  await form.getByLabel('Make it the default target').check()
  await form.getByRole('button', { name: 'Add backup target' }).click()
  // The check could not log in: said at the password, and nothing was kept.
  await form.locator('.field.has-error').first().waitFor()
  expect(await form.locator('.field.has-error label').allTextContents()).toEqual(['Password'])
  await checkAccessibility(page, 'a backup target refused at its field')
  await form.getByLabel('Password', { exact: true }).fill(`right-${tag}`)
  await form.getByRole('button', { name: 'Add backup target' }).click()
  await page.getByRole('heading', { level: 1, name: 'Backup targets' }).waitFor()
  const offsite = page.getByRole('row', { name: /offsite/ })
  await offsite.waitFor()
  expect(await offsite.textContent()).toContain(rest.url)
  await offsite.getByText('Default').waitFor()
  expect(await local.getByRole('button', { name: 'Make Each site’s node the default' }).count()).toBe(1)

  // The default is not deleted: the API's reason is said.
  await offsite.getByRole('button', { name: 'Delete offsite' }).click()
  await offsite.getByRole('button', { name: 'Confirm delete offsite' }).click()
  await page.getByRole('alert').first().waitFor()
  expect(await page.getByRole('alert').first().textContent()).toMatch(/default/i)
  await checkAccessibility(page, 'a backup target’s delete refused')

  // Back to each site's node, which the site's backups below go to.
  await local.getByRole('button', { name: 'Make Each site’s node the default' }).click()
  await local.getByRole('button', { name: 'Confirm Each site’s node as the default' }).click()
  await local.getByText('Default').waitFor()

  // The overdue list: the site created a moment ago is not due yet.
  await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Overdue backups' }).click()
  await page.getByRole('heading', { level: 1, name: 'Overdue backups' }).waitFor()
  await page.getByText('No site is overdue').waitFor()
  await checkAccessibility(page, 'the overdue backups, none')
  await failures.assertClean('adding backup targets')
}, 90_000)

test('a developer backs the site up, previews and restores its database, and undoes the restore', async () => {
  const { page, failures } = await signedIn(`sites/${siteId}`, developer)
  await page.getByRole('heading', { level: 1, name: 'Acme Blog' }).waitFor()
  await page.getByRole('navigation', { name: 'Site pages' }).getByRole('link', { name: 'Backups' }).click()
  await page.getByRole('heading', { level: 1, name: 'Backups · Acme Blog' }).waitFor()
  await page.getByText('No good backup yet.').waitFor()
  await checkAccessibility(page, 'a site’s backups, none yet')

  await page.getByRole('button', { name: 'Back up now' }).click()
  await page.locator('[data-testid="job-progress"][data-status="succeeded"]').waitFor({ timeout: 180_000 })
  const age = page.getByTestId('last-good-backup')
  await age.getByText('Last good backup: just now').waitFor()
  const row = page.getByRole('row', { name: /completed/ })
  expect(await row.textContent()).toContain(`Database ${databaseName}`)
  await checkAccessibility(page, 'a site’s backups after one completed')

  // Download: the link is made and opened, and the browser saves the archive.
  const [download] = await Promise.all([
    page.waitForEvent('download', { timeout: 120_000 }),
    row.getByRole('button', { name: /^Download/ }).click(),
  ])
  expect(download.suggestedFilename()).toMatch(
    new RegExp(`^${domain.replaceAll('.', '\\.')}-bkp_\\w+\\.tar\\.gz$`),
  )
  const saved = await download.path()
  expect((await Bun.file(saved).bytes()).subarray(0, 2)).toEqual(new Uint8Array([0x1f, 0x8b]))

  // A post written after the backup: restoring the database takes it away, undoing the restore brings it back.
  await root.query(
    `INSERT INTO \`${databaseName}\`.wp_posts (post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt, post_status, post_name, to_ping, pinged, post_modified, post_modified_gmt, post_content_filtered, post_type) VALUES (1, NOW(), NOW(), 'x', 'Written after', '', 'publish', 'written-after', '', '', NOW(), NOW(), '', 'post')`,
  )
  expect(await postTitles()).toContain('Written after')

  await row.getByRole('link', { name: /Restore/ }).click()
  await page.getByRole('heading', { level: 1, name: 'Restore · Acme Blog' }).waitFor()
  const form = page.getByTestId('restore-form')
  await form.getByLabel('Databases only').check()
  await form.getByLabel(new RegExp(databaseName)).check()
  await form.getByRole('button', { name: 'Preview restore' }).click()
  const preview = page.getByTestId('restore-preview')
  await preview.waitFor()
  const said = await preview.textContent()
  expect(said).toContain(`Leaves the files of ${domain} as they are.`)
  expect(said).toMatch(new RegExp(`Loads database ${databaseName} \\(\\d+ tables\\)`))
  expect(said).toContain(`A pre-restore backup of ${domain} is taken first`)
  await checkAccessibility(page, 'a restore’s preview')
  await form.getByRole('button', { name: 'Restore now' }).click()

  const restoring = page.getByTestId('restore-progress')
  await restoring
    .locator('[data-testid="job-progress"][data-status="succeeded"]')
    .waitFor({ timeout: 180_000 })
  expect(await postTitles()).not.toContain('Written after')
  await checkAccessibility(page, 'a restore done, its undo offered')
  await restoring.getByRole('button', { name: 'Undo this restore' }).click()
  const undoing = page.getByTestId('undo-progress')
  await undoing.locator('[data-testid="job-progress"][data-status="succeeded"]').waitFor({ timeout: 180_000 })
  expect(await postTitles()).toContain('Written after')
  await undoing.getByText('The restore is undone.').waitFor()

  // The list shows the pre-restore backups the restore and its undo took.
  await page.getByRole('link', { name: 'Back to the site’s backups' }).click()
  await page.getByRole('heading', { level: 1, name: 'Backups · Acme Blog' }).waitFor()
  await waitFor('the pre-restore backups to be listed', async () =>
    (await page.getByRole('row', { name: /Before a restore/ }).count()) >= 2 ? true : null,
  )
  await failures.assertClean('backing up, restoring and undoing')
}, 600_000)

test('a billing member finds no backups, and a developer no staff pages of backups', async () => {
  const email = `billing-${tag}@acme.test`
  await createTestUser(tp.panel.store.db, { email, staffRole: null })
  expect((await call('POST', `/customers/${customerId}/members`, { email, role: 'billing' })).status).toBe(
    201,
  )
  const { page, failures } = await signedIn(`sites/${siteId}/backups`, email)
  await page.getByRole('heading', { level: 1, name: 'Not available to you' }).waitFor()
  expect(await page.getByRole('button', { name: 'Back up now' }).count()).toBe(0)
  await failures.assertClean('a site’s backups refused to a billing member')

  const developerPage = await signedIn('', developer)
  const areas = developerPage.page.getByRole('navigation', { name: 'Areas' })
  expect(await areas.getByRole('link', { name: 'Backup targets' }).count()).toBe(0)
  expect(await areas.getByRole('link', { name: 'Overdue backups' }).count()).toBe(0)
  await developerPage.failures.assertClean('a developer’s navigation')
}, 60_000)

test('staff set the site’s own policy (a refusal at its field first), see where each member comes from, and reset it', async () => {
  const { page, failures } = await signedIn(`sites/${siteId}/backups`, undefined, [
    /PUT \S+\/api\/v1\/sites\/site_\w+\/backup-policy → 422$/,
  ])
  await page.getByRole('heading', { level: 1, name: 'Backups · Acme Blog' }).waitFor()
  const policy = page.locator('section').filter({ has: page.getByRole('heading', { name: 'Policy' }) })
  await policy.getByText('Daily (the panel’s default)').waitFor()
  const form = page.getByTestId('backup-policy-form')
  await form.getByLabel('Schedule').selectOption('weekly')
  await form.getByLabel('Keep daily').fill('9999')
  await form.getByRole('button', { name: 'Save policy' }).click()
  await form.locator('.field.has-error').first().waitFor()
  expect(await form.locator('.field.has-error label').allTextContents()).toEqual(['Keep daily'])
  await checkAccessibility(page, 'a site’s policy refused at its field')
  await form.getByLabel('Keep daily').fill('3')
  await form.getByRole('button', { name: 'Save policy' }).click()
  await policy.getByText('Weekly (set for this site)').waitFor()
  expect(await policy.locator('[data-member="keepDaily"]').textContent()).toBe('3 (set for this site)')
  expect(await policy.locator('[data-member="keepWeekly"]').textContent()).toMatch(/\(the panel’s default\)$/)
  await checkAccessibility(page, 'a site’s own policy')
  await policy.getByRole('button', { name: 'Reset to its plan’s policy' }).click()
  await policy.getByRole('button', { name: 'Confirm reset to its plan’s policy' }).click()
  await policy.getByText('Daily (the panel’s default)').waitFor()
  expect(await policy.locator('[data-member="keepDaily"]').textContent()).toMatch(/\(the panel’s default\)$/)
  await failures.assertClean('a site’s own policy set and reset')
}, 60_000)

test('staff restore into a new site on a chosen node, after chosen paths were refused at their field', async () => {
  const nodes = await call<{ items: { name: string }[] }>('GET', '/nodes')
  const nodeName = nodes.body.items[0]?.name ?? ''
  const { page, failures } = await signedIn(`sites/${siteId}/backups`, undefined, [
    /POST \S+\/api\/v1\/sites\/site_\w+\/backups\/bkp_\w+\/restore → 422$/,
  ])
  await page.getByRole('heading', { level: 1, name: 'Backups · Acme Blog' }).waitFor()
  await page
    .getByRole('link', { name: /^Restore/ })
    .first()
    .click()
  await page.getByRole('heading', { level: 1, name: 'Restore · Acme Blog' }).waitFor()
  const form = page.getByTestId('restore-form')

  // A path out of the site: the API refuses it, and the paths field says which.
  await form.getByLabel('Files only').check()
  await form.getByLabel('Chosen paths').check()
  await form.getByLabel('Paths', { exact: true }).fill('/htdocs/wp-content\n/../etc')
  await form.getByRole('button', { name: 'Preview restore' }).click()
  const preview = page.getByTestId('restore-preview')
  expect(await preview.textContent()).toContain(`Replaces /htdocs/wp-content of ${domain}`)
  await form.getByRole('button', { name: 'Restore now' }).click()
  await form.locator('.field.has-error').first().waitFor()
  expect(await form.locator('.field.has-error').textContent()).toContain('/../etc:')
  await checkAccessibility(page, 'a restore’s paths refused at their field')

  const cloneDomain = `copy-${tag}.example.test`
  await form.getByLabel('Everything: its files and every database').check()
  await form.getByLabel('Into a new site (a copy)').check()
  await form.getByLabel('New site’s domain').fill(cloneDomain)
  await form.getByLabel('Node').selectOption({ label: nodeName })
  await form.getByRole('button', { name: 'Preview restore' }).click()
  const said = await preview.textContent()
  expect(said).toContain(`Creates a new site ${cloneDomain}`)
  expect(said).toContain(`on node ${nodeName}`)
  expect(said).toContain(`Replaces all files of ${cloneDomain}`)
  expect(said).toContain('no pre-restore backup')
  await checkAccessibility(page, 'a clone’s preview')
  await form.getByRole('button', { name: 'Restore now' }).click()
  const restoring = page.getByTestId('restore-progress')
  await restoring
    .locator('[data-testid="job-progress"][data-status="succeeded"]')
    .waitFor({ timeout: 240_000 })
  expect(await restoring.getByTestId('pre-restore').count()).toBe(0)
  await restoring.getByRole('link', { name: 'Open the new site' }).click()
  await page.waitForURL(/\/sites\/site_\w+$/)
  await page.getByRole('heading', { level: 1, name: cloneDomain }).waitFor()
  await failures.assertClean('a restore into a new site')
}, 300_000)
