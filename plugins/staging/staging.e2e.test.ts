// A real WordPress site's staging copy and its push to live, end to end through the console in Chromium and the API:
// the panel's local node serves with this machine's nginx, PHP-FPM, Debian's WordPress and MariaDB, and backs up with
// restic into a local target. A developer makes the staging copy in the site's Staging tab; it serves its own domain
// with the live site's posts at its own URL (and asks search engines not to index it). A post changed on staging is
// carried to live by a push of that table and a listed file, chosen in the tab after reading its preview; the live
// site then shows it at its own URL; the push's undo, one API call, puts the live site back. Every page passes axe's
// WCAG 2.1 AA rules. Node side (restic, nginx, MariaDB, Chromium): run once.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chownSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Connection, RowDataPacket } from 'mysql2/promise'
import type { Browser, Page } from 'playwright-core'
import {
  checkAccessibility,
  collectPageFailures,
  launchBrowser,
  type PageFailures,
} from '../../hosts/testing/browser.ts'
import {
  createTestUser,
  type RunningServer,
  servePanel,
  startWordPressPanel,
  type TestPanel,
  testPassword,
  type WordPressPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import { backupsPlugin } from '../backups/index.ts'

const tag = crypto.randomUUID().slice(0, 8)
const liveDomain = `shop-${tag}.example.test`
const stagingDomain = `staging-${tag}.example.test`
const liveUrl = `http://${liveDomain}`
const stagingUrl = `http://${stagingDomain}`
const developer = `dev-${tag}@acme.test`

let wp: WordPressPanel
let tp: TestPanel
let token: string
let root: Connection
let customerId = ''
let live = ''
let staging = ''
let liveDatabase = ''
let server: RunningServer
let browser: Browser

async function call<T = Record<string, unknown>>(method: string, path: string, body?: unknown) {
  const response = await tp.request(method, path.startsWith('/api/') ? path : `/api/v1${path}`, {
    token,
    body,
  })
  const text = await response.text()
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T }
}

interface Job {
  status: string
  result: Record<string, unknown> | null
  error: { code: string; message: string } | null
}
async function finished(jobId: string): Promise<Job> {
  return waitFor(
    `job ${jobId}`,
    async () => {
      const job = (await call<Job>('GET', `/jobs/${jobId}`)).body
      if (job.status === 'succeeded' || job.status === 'failed') return job
      await Bun.sleep(100)
      return null
    },
    300_000,
  )
}

const htdocs = (siteId: string) => join(wp.sitesDir, 'sites', siteId, 'htdocs')
/** What the sites' nginx answers for `host` at `path`. */
const fromSite = async (host: string, path = '/') =>
  (await fetch(`http://127.0.0.1:${wp.httpPort}${path}`, { redirect: 'manual', headers: { host } })).text()

async function databaseOf(siteId: string): Promise<string> {
  const databases = await call<{ items: { name: string; siteId: string | null }[] }>(
    'GET',
    `/databases?customerId=${customerId}`,
  )
  const name = databases.body.items.find((database) => database.siteId === siteId)?.name
  if (!name) throw new Error(`no database of ${siteId}`)
  return name
}

async function option(database: string, name: string): Promise<string | undefined> {
  const [rows] = await root.query<RowDataPacket[]>(
    `SELECT option_value FROM \`${database}\`.wp_options WHERE option_name = ?`,
    [name],
  )
  return rows[0]?.option_value as string | undefined
}

async function setPost(database: string, content: string): Promise<void> {
  await root.query(`UPDATE \`${database}\`.wp_posts SET post_content = ? WHERE ID = 1`, [content])
}

/** A file in the site's documents, owned as the site's own. */
function writeSiteFile(siteId: string, name: string, text: string): void {
  const path = join(htdocs(siteId), name)
  writeFileSync(path, text)
  const owner = statSync(htdocs(siteId))
  chownSync(path, owner.uid, owner.gid)
}

beforeAll(async () => {
  // Backups checked lightly: their checks are backups.e2e.test.ts's; here they only carry the copies.
  wp = await startWordPressPanel({
    prefix: 'plinth-staging-e2e-',
    tag,
    plugins: [backupsPlugin({ verify: { readDataPercent: 1, sampleFiles: 1 } })],
  })
  ;({ tp, token, root } = wp)
  expect(
    (await call('POST', '/backup-targets', { name: `local-${tag}`, kind: 'local', default: true })).status,
  ).toBe(201)
  customerId = (await call<{ id: string }>('POST', '/customers', { name: 'Acme' })).body.id
  ;({ siteId: live, databaseName: liveDatabase } = await wp.newWordPressSite(
    customerId,
    'Acme Shop',
    liveDomain,
  ))
  await createTestUser(tp.panel.store.db, { email: developer, staffRole: null })
  const added = await call('POST', `/customers/${customerId}/members`, {
    email: developer,
    role: 'developer',
  })
  expect(added.status).toBe(201)
  server = servePanel(tp.panel, { hostname: '127.0.0.1', port: 0 })
  browser = await launchBrowser()
}, 300_000)

/** The developer signed in in a browser of their own, at `path`. */
async function signedIn(path: string): Promise<{ page: Page; failures: PageFailures }> {
  const page = await (await browser.newContext()).newPage()
  const failures = await collectPageFailures(page, {
    // A site without a staging copy reads 404 staging_not_found: the tab then offers to make one.
    allow: [/GET \S+\/api\/v1\/me → 401$/, /GET \S+\/api\/v1\/sites\/site_\w+\/staging → 404$/],
  })
  await page.goto(server.url.href)
  await page.getByLabel('E-mail').fill(developer)
  await page.getByLabel('Password').fill(testPassword)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('navigation', { name: 'Areas' }).waitFor()
  await page.goto(new URL(path, server.url).href)
  return { page, failures }
}

afterAll(async () => {
  await browser?.close()
  for (const siteId of [staging, live].filter(Boolean)) {
    const deleted = await call<{ jobId: string }>('DELETE', `/sites/${siteId}`).catch(() => null)
    if (deleted?.body?.jobId) await finished(deleted.body.jobId).catch(() => {})
  }
  await server?.stop()
  await wp?.close()
}, 120_000)

describe('a WordPress site’s staging copy', () => {
  test('serves its own domain with the live site’s posts at the staging URL, hidden from search engines', async () => {
    await setPost(liveDatabase, `Live ${tag}: <a href="${liveUrl}/about/">About</a>`)
    // Made in the live site's Staging tab.
    const { page, failures } = await signedIn(`sites/${live}`)
    await page.getByRole('heading', { level: 1, name: 'Acme Shop' }).waitFor()
    await page.getByRole('navigation', { name: 'Site pages' }).getByRole('link', { name: 'Staging' }).click()
    await page.getByRole('button', { name: 'Make staging copy' }).waitFor()
    await checkAccessibility(page, 'a site without a staging copy')
    await page.getByLabel('Staging domain').fill(stagingDomain)
    await page.getByRole('button', { name: 'Make staging copy' }).click()
    // Followed live, then the copy's state: ready (or failed, which the API read below would say why).
    await page
      .getByTestId('staging-status')
      .getByText(/— (ready|failed)/)
      .waitFor({ timeout: 180_000 })
    expect((await call('GET', `/sites/${live}/staging`)).body).toMatchObject({ status: 'ready', error: null })
    await checkAccessibility(page, 'a site with its staging copy')
    await failures.assertClean('making a staging copy')
    await page.context().close()
    const made = await call<{ stagingSiteId: string }>('GET', `/sites/${live}/staging`)
    staging = made.body.stagingSiteId
    expect(made.body).toMatchObject({
      status: 'ready',
      stagingSiteId: staging,
      stagingDomain,
      liveDomain,
    })

    const stagingDatabase = await databaseOf(staging)
    expect(stagingDatabase).not.toBe(liveDatabase)
    expect(readFileSync(join(htdocs(staging), 'wp-config.php'), 'utf8')).toContain(`'${stagingDatabase}'`)
    expect(await option(stagingDatabase, 'home')).toBe(stagingUrl)
    expect(await option(stagingDatabase, 'blog_public')).toBe('0')
    expect(await option(liveDatabase, 'blog_public')).toBe('1')
    // A real request with the staging Host: the live site's post, at the staging URL, with robots told no.
    const html = await fromSite(stagingDomain, '/?p=1')
    expect(html).toContain(`Live ${tag}`)
    expect(html).toContain(`href="${stagingUrl}/about/"`)
    expect(html).not.toContain(liveDomain)
    expect(html).toMatch(/<meta name=['"]robots['"] content=['"][^'"]*noindex/)
    // The live site is left as it was.
    expect(await fromSite(liveDomain, '/?p=1')).toContain(`href="${liveUrl}/about/"`)
  }, 240_000)

  test('a post changed on staging is carried to live by a push of its table; the undo puts live back', async () => {
    const stagingDatabase = await databaseOf(staging)
    await setPost(stagingDatabase, `Staged ${tag}: <a href="${stagingUrl}/news/">News</a>`)
    writeSiteFile(staging, `pushed-${tag}.txt`, 'from staging\n')
    writeSiteFile(staging, `left-${tag}.txt`, 'not pushed\n')

    // Pushed from the staging site's Staging tab: a listed file and the posts' table, after reading the preview.
    const { page, failures } = await signedIn(`sites/${staging}/staging`)
    await page.getByRole('button', { name: 'Push to live' }).waitFor()
    await page.getByLabel('These paths').check()
    await page.getByLabel('Paths, one a line').fill(`/htdocs/pushed-${tag}.txt`)
    await page.getByLabel('These tables').check()
    await page.getByLabel('Tables, one a line').fill('wp_posts')
    const preview = page.getByTestId('push-preview')
    await preview
      .getByText(
        `These tables of ${liveDomain} are replaced by the staging copy’s: wp_posts; the others are left.`,
      )
      .waitFor()
    await preview
      .getByText(`These paths of ${liveDomain} become the staging copy’s: /htdocs/pushed-${tag}.txt.`)
      .waitFor()
    await checkAccessibility(page, 'a push chosen, its preview')
    await page.getByRole('button', { name: 'Push to live' }).click()
    await page.getByRole('button', { name: `Confirm push to ${liveDomain}` }).click()
    await page.locator('[data-testid="job-progress"][data-status="succeeded"]').waitFor({ timeout: 180_000 })
    await page.getByRole('button', { name: 'Undo this push' }).waitFor()
    await checkAccessibility(page, 'a push done, its undo offered')
    await failures.assertClean('pushing to live')
    await page.context().close()
    const lastPush = (
      await call<{ lastPush: { jobId: string; preRestoreBackupId: string } }>('GET', `/sites/${live}/staging`)
    ).body.lastPush
    const job = await finished(lastPush.jobId)
    expect(job).toMatchObject({ status: 'succeeded', error: null })
    const undo = job.result?.undo as { method: string; path: string; body: unknown }
    expect(undo).toMatchObject({
      method: 'POST',
      path: `/api/v1/sites/${live}/backups/${lastPush.preRestoreBackupId}/restore`,
    })

    // Live shows the staged post at its own URL; its options (not pushed) and wp-config are its own.
    const html = await fromSite(liveDomain, '/?p=1')
    expect(html).toContain(`Staged ${tag}`)
    expect(html).toContain(`href="${liveUrl}/news/"`)
    expect(html).not.toContain(stagingDomain)
    expect(await option(liveDatabase, 'home')).toBe(liveUrl)
    expect(await option(liveDatabase, 'blog_public')).toBe('1')
    expect(readFileSync(join(htdocs(live), 'wp-config.php'), 'utf8')).toContain(`'${liveDatabase}'`)
    expect(readFileSync(join(htdocs(live), `pushed-${tag}.txt`), 'utf8')).toBe('from staging\n')
    expect(existsSync(join(htdocs(live), `left-${tag}.txt`))).toBe(false)
    expect(
      (await call<{ lastPush: { status: string } }>('GET', `/sites/${live}/staging`)).body.lastPush,
    ).toMatchObject({ status: 'succeeded', undo })

    // The undo, one call: live as it was before the push.
    const undone = await call<{ jobId: string }>(undo.method, undo.path, undo.body)
    expect(undone.status).toBe(202)
    expect(await finished(undone.body.jobId)).toMatchObject({ status: 'succeeded', error: null })
    const back = await fromSite(liveDomain, '/?p=1')
    expect(back).toContain(`Live ${tag}`)
    expect(back).not.toContain(`Staged ${tag}`)
    expect(existsSync(join(htdocs(live), `pushed-${tag}.txt`))).toBe(false)
  }, 300_000)
})
