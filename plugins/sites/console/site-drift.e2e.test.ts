// Reconciliation in Chromium: a node (its agent played by the test) reports it lost a site and holds a server block
// nobody recorded; the site is provisioned again, its page says it came back from nothing and staff mark that dealt
// with; the node's page lists what it holds unknown and compares it again on "Compare now". Every state passes axe's
// WCAG 2.1 AA rules with nothing failing on the page.

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

/** The next `inventory` command the panel sends the node (its subject is one of its own). */
const inventoryCommand = () =>
  waitFor('the inventory command', async () => {
    const commands = await agent.poll(undefined, 1)
    return commands.find((command) => command.operation === 'inventory') ?? null
  })

/** Staff signed in in a browser of their own, at `path`. */
async function signedIn(path: string): Promise<{ page: Page; failures: PageFailures }> {
  const page = await (await browser.newContext()).newPage()
  const failures = await collectPageFailures(page, { allow: [/GET \S+\/api\/v1\/me → 401$/] })
  await page.goto(server.url.href)
  await page.getByLabel('E-mail').fill((await tp.staff()).email)
  await page.getByLabel('Password').fill(testPassword)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('navigation', { name: 'Areas' }).waitFor()
  await page.goto(new URL(path, server.url).href)
  return { page, failures }
}

test('a site its node lost comes back, its page says so until marked dealt with, and the node lists what it holds unknown', async () => {
  const created = await tp.request('POST', '/api/v1/sites', {
    token,
    body: {
      customerId,
      name: 'Shop',
      type: 'wordpress',
      domain: `shop-${crypto.randomUUID().slice(0, 8)}.example.com`,
    },
  })
  const site = (await created.json()) as Site
  // The node was compared when its agent connected: it held nothing then.
  await agent.answer(await inventoryCommand(), null, { sites: [], strays: [], services: {} })
  await agent.answer(await agent.command(site.id, 'provision'))
  await waitFor('the site to be active', async () => {
    const read = (await (await tp.request('GET', `/api/v1/sites/${site.id}`, { token })).json()) as Site
    return read.status === 'active'
  })
  // The node was rebuilt: it holds no site, and a server block of its operator's.
  const started = await tp.request('POST', `/api/v1/nodes/${nodeId}/reconcile`, { token })
  expect(started.status).toBe(202)
  const inventory = { sites: [], strays: [{ kind: 'server-block', name: 'hand-made' }], services: {} }
  await agent.answer(await inventoryCommand(), null, inventory)
  await agent.answer(await agent.command(site.id, 'provision'))
  await waitFor('the site to be provisioned again', async () => {
    const read = (await (await tp.request('GET', `/api/v1/sites/${site.id}`, { token })).json()) as Site
    return read.drift?.code === 'content_lost'
  })

  const { page, failures } = await signedIn(`sites/${site.id}`)
  await page.getByRole('heading', { level: 1, name: 'Shop' }).waitFor()
  const notice = page.getByRole('status').filter({ hasText: 'set up again on its node from nothing' })
  await notice.waitFor()
  expect(await notice.textContent()).toContain('content_lost')
  await checkAccessibility(page, 'a site set up again from nothing')
  await page.getByRole('button', { name: 'Mark as dealt with' }).click()
  await notice.waitFor({ state: 'detached' })
  const read = (await (await tp.request('GET', `/api/v1/sites/${site.id}`, { token })).json()) as Site
  expect(read.drift).toBeNull()

  await page.goto(new URL(`nodes/${nodeId}`, server.url).href)
  const held = page.locator('section').filter({ has: page.getByRole('heading', { name: 'What it holds' }) })
  await held.getByText('hand-made').waitFor()
  expect(await held.textContent()).toContain('an nginx server block')
  await checkAccessibility(page, 'a node holding what the panel does not know')
  await held.getByRole('button', { name: 'Compare now' }).click()
  await held.getByRole('link', { name: 'Follow the comparison' }).waitFor()
  await agent.answer(await inventoryCommand(), null, {
    sites: [{ id: site.id, domain: site.domain, state: 'active', certificate: null, app: null }],
    strays: [],
    services: {},
  })
  await failures.assertClean('reconciliation on the site’s and the node’s pages')
}, 90_000)
