// A site's resources in Chromium: its page shows what the site uses against each limit (a bar, the hits of the last
// 24 h, where each limit comes from, and a kind its node does not enforce said so), platform staff set the site's own
// CPU limit there and the node is sent it, and the node's page shows which limits it enforces and edits its sites'
// defaults; a customer's member sees the use and no form. The test plays the node's agent, answering its reading on
// cue. Every state passes axe's WCAG 2.1 AA rules with nothing failing on the page.

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
  nodeWithPlayedAgent,
  type playAgent,
  type RunningServer,
  servePanel,
  type TestPanel,
  testPassword,
  waitFor,
} from '../../../hosts/testing/index.ts'
import type { Site } from '../contract.ts'

let tp: TestPanel
let server: RunningServer
let browser: Browser
let token: string
let customerId: string
let nodeId: string
let agent: ReturnType<typeof playAgent>

beforeAll(async () => {
  tp = await createTestPanel({ jobs: { pollIntervalMs: 10, retryBaseMs: 100, retryMaxMs: 200 } })
  tp.panel.start()
  token = await tp.token()
  const played = await nodeWithPlayedAgent(tp, token)
  agent = played.agent
  nodeId = played.nodeId
  const customer = await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Acme' } })
  customerId = ((await customer.json()) as { id: string }).id
  server = servePanel(tp.panel, { hostname: '127.0.0.1', port: 0 })
  browser = await launchBrowser()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await tp?.panel.close()
})

/** Staff (or the user with `email`) signed in in a browser of their own, at `path`. */
async function signedIn(path: string, email?: string): Promise<{ page: Page; failures: PageFailures }> {
  const page = await (await browser.newContext()).newPage()
  const failures = await collectPageFailures(page, { allow: [/GET \S+\/api\/v1\/me → 401$/] })
  await page.goto(server.url.href)
  await page.getByLabel('E-mail').fill(email ?? (await tp.staff()).email)
  await page.getByLabel('Password').fill(testPassword)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('navigation', { name: 'Areas' }).waitFor()
  await page.goto(new URL(path, server.url).href)
  return { page, failures }
}

/** The node's reading of the site: memory near its limit and hit 4 times, disk measured but not enforced. */
function reading(siteId: string) {
  const use = (used: number, limit: number | null, hits24h = 0, enforced = true) => ({
    used,
    limit,
    hits24h,
    enforced,
  })
  return [
    {
      siteId,
      at: new Date().toISOString(),
      cpu: use(42, 100),
      memory: use(900 * 1024 * 1024, 1024 * 1024 * 1024, 4),
      processes: use(9, 128),
      disk: use(12 * 1024 * 1024, null, 0, false),
    },
  ]
}

/** Answers the next `resources` command the panel sends the node for the site with its reading. */
async function answerReading(siteId: string): Promise<void> {
  const command = await waitFor(
    'the resources command',
    async () =>
      (await agent.poll(undefined, 1)).find(
        (item) =>
          item.operation === 'resources' &&
          (item.payload as { siteIds?: string[] } | null)?.siteIds?.includes(siteId) === true,
      ) ?? null,
  )
  await agent.answer(command, null, reading(siteId))
}

test('a site’s page shows its use against its limits, staff set its CPU, and the node’s page its defaults', async () => {
  const created = await tp.request('POST', '/api/v1/sites', {
    token,
    body: {
      customerId,
      name: 'Busy shop',
      type: 'wordpress',
      domain: `busy-${crypto.randomUUID().slice(0, 8)}.example.com`,
    },
  })
  const site = (await created.json()) as Site
  await agent.answer(await agent.command(site.id, 'provision'))
  await waitFor('the site to be active', async () => {
    const read = (await (await tp.request('GET', `/api/v1/sites/${site.id}`, { token })).json()) as Site
    return read.status === 'active'
  })

  const { page, failures } = await signedIn(`sites/${site.id}`)
  await page.getByRole('heading', { level: 1, name: 'Busy shop' }).waitFor()
  await answerReading(site.id)
  const table = page.getByTestId('site-resources')
  await table.waitFor()
  const memory = table.getByRole('row', { name: /Memory/ })
  expect(await memory.textContent()).toContain('900 MB')
  expect(await memory.textContent()).toContain('1,024 MB')
  expect(await memory.getByRole('meter').getAttribute('aria-label')).toBe('Memory: 900 MB of 1,024 MB')
  expect(await memory.getByRole('cell').nth(3).textContent()).toBe('4')
  expect(await table.getByRole('row', { name: /Disk/ }).textContent()).toContain('Not enforced on this node')
  await checkAccessibility(page, 'a site’s resources against its limits')

  const form = page.getByTestId('site-limits-form')
  await form.getByText('Now 100 (its node’s default)').waitFor()
  await form.getByLabel('CPU (% of one core)').fill('250')
  await form.getByRole('button', { name: 'Save limits' }).click()
  const update = await agent.command(site.id, 'update')
  expect(update.payload).toMatchObject({ cpuPercent: 250, memoryMB: 1024, processes: 128 })
  await agent.answer(update)
  await form.getByText('Now 250 (set for this site)').waitFor()

  await page.goto(new URL(`nodes/${nodeId}`, server.url).href)
  const defaults = page.getByTestId('node-site-defaults')
  await defaults.waitFor()
  expect(await defaults.getByLabel('Memory (MB)').inputValue()).toBe('1024')
  expect(
    await page
      .locator('section')
      .filter({ has: page.getByRole('heading', { name: 'Limits it enforces' }) })
      .textContent(),
  ).toContain('has not said which limits it enforces')
  await checkAccessibility(page, 'a node’s site defaults')
  await defaults.getByLabel('Processes').fill('200')
  await defaults.getByRole('button', { name: 'Save defaults' }).click()
  await waitFor('the defaults to be saved', async () => {
    const node = (await (await tp.request('GET', `/api/v1/nodes/${nodeId}`, { token })).json()) as {
      siteDefaults: { processes: number }
    }
    return node.siteDefaults.processes === 200
  })
  // The node's site takes its new default through the limits check.
  expect((await agent.command(site.id, 'update')).payload).toMatchObject({ cpuPercent: 250, processes: 200 })
  await failures.assertClean('resources and limits on the site’s and the node’s pages')
}, 90_000)

test('a customer’s member sees the site’s use against its limits, and no form to set them', async () => {
  const created = await tp.request('POST', '/api/v1/sites', {
    token,
    body: {
      customerId,
      name: 'Member shop',
      type: 'wordpress',
      domain: `member-${crypto.randomUUID().slice(0, 8)}.example.com`,
    },
  })
  const site = (await created.json()) as Site
  await agent.answer(await agent.command(site.id, 'provision'))
  await waitFor('the site to be active', async () => {
    const read = (await (await tp.request('GET', `/api/v1/sites/${site.id}`, { token })).json()) as Site
    return read.status === 'active'
  })
  const email = `dev-${crypto.randomUUID().slice(0, 8)}@acme.test`
  await createTestUser(tp.panel.store.db, { email, staffRole: null })
  const added = await tp.request('POST', `/api/v1/customers/${customerId}/members`, {
    token,
    body: { email, role: 'developer' },
  })
  expect(added.status).toBe(201)

  const { page, failures } = await signedIn(`sites/${site.id}`, email)
  await page.getByRole('heading', { level: 1, name: 'Member shop' }).waitFor()
  await answerReading(site.id)
  const table = page.getByTestId('site-resources')
  await table.waitFor()
  expect(await table.getByRole('row', { name: /Memory/ }).textContent()).toContain('900 MB')
  expect(await page.getByTestId('site-limits-form').count()).toBe(0)
  expect(await page.getByRole('button', { name: 'Save limits' }).count()).toBe(0)
  await checkAccessibility(page, 'a site’s resources, as a customer’s member')
  await failures.assertClean('a site’s resources as a customer’s member')
}, 90_000)
