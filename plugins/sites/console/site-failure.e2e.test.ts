// A failed site's page in Chromium: staff open a site whose node refused it, read why (the message and its code) with
// a link to the job that failed, set it up again with "Retry setup" (the node answers this time) and watch it become
// active; a second failed site is deleted from its page and the page goes back to the list once it is gone. The node
// is a remote one whose agent the test plays (the kit's played agent). Every state passes axe's WCAG
// 2.1 AA rules with nothing failing on the page. The dashboard flags the failed sites (count and link), the nodes say
// whether they are ready and why not, and staff choosing a node that is not ready for a new site are told why.

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
  filesOnlyNode,
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
let agent: ReturnType<typeof playAgent>

beforeAll(async () => {
  tp = await createTestPanel({ jobs: { pollIntervalMs: 10, retryBaseMs: 100, retryMaxMs: 200 } })
  tp.panel.start()
  token = await tp.token()
  agent = (await nodeWithPlayedAgent(tp, token)).agent
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

/** A site its node refused for good: `failed`, with the node's reason. */
async function failedSite(): Promise<Site> {
  const response = await tp.request('POST', '/api/v1/sites', {
    token,
    body: {
      customerId,
      name: 'Shop',
      type: 'wordpress',
      domain: `shop-${crypto.randomUUID().slice(0, 8)}.example.com`,
    },
  })
  const site = (await response.json()) as Site
  await agent.answer(await agent.command(site.id, 'provision'), {
    code: 'nginx_config_refused',
    message: 'nginx: [emerg] unknown directive "brotli"',
    final: true,
  })
  await waitFor('the site to fail', async () => {
    const read = (await (await tp.request('GET', `/api/v1/sites/${site.id}`, { token })).json()) as Site
    return read.status === 'failed'
  })
  return site
}

/** Staff signed in in a browser of their own, at the site's page. */
async function atSitePage(
  siteId: string,
  allow: readonly RegExp[] = [],
): Promise<{ page: Page; failures: PageFailures }> {
  const page = await (await browser.newContext()).newPage()
  const failures = await collectPageFailures(page, { allow: [/GET \S+\/api\/v1\/me → 401$/, ...allow] })
  await page.goto(server.url.href)
  await page.getByLabel('E-mail').fill((await tp.staff()).email)
  await page.getByLabel('Password').fill(testPassword)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('navigation', { name: 'Areas' }).waitFor()
  await page.goto(new URL(`sites/${siteId}`, server.url).href)
  await page.getByRole('heading', { level: 1, name: 'Shop' }).waitFor()
  return { page, failures }
}

test('a failed site’s page says why, links the job, and “Retry setup” provisions it again', async () => {
  const site = await failedSite()
  const { page, failures } = await atSitePage(site.id)
  const alert = page.getByRole('alert').filter({ hasText: 'Setting up this site failed' })
  await alert.waitFor()
  expect(await alert.textContent()).toContain('unknown directive "brotli"')
  expect(await alert.textContent()).toContain('nginx_config_refused')
  expect(await alert.getByRole('link', { name: 'See the job that failed' }).getAttribute('href')).toBe(
    `/jobs/${site.jobId}`,
  )
  await checkAccessibility(page, 'a failed site')

  await page.getByRole('button', { name: 'Retry setup' }).click()
  // The node answers this time: the page follows the site to active, and the reason goes.
  await agent.answer(await agent.command(site.id, 'provision', 1))
  await page.getByText('active', { exact: true }).first().waitFor()
  await alert.waitFor({ state: 'detached' })
  await checkAccessibility(page, 'the site set up again')
  await failures.assertClean('a failed site, retried')
}, 60_000)

test('a failed site is deleted from its page, which goes back to the list once it is gone', async () => {
  const site = await failedSite()
  const { page, failures } = await atSitePage(site.id)
  await page.getByRole('button', { name: 'Delete site' }).click()
  await page.getByRole('button', { name: 'Confirm delete' }).click()
  await page.getByText('Deleting Shop…').waitFor()
  await agent.answer(await agent.command(site.id, 'delete'))
  await page.waitForURL((url) => url.pathname === '/sites')
  expect((await tp.request('GET', `/api/v1/sites/${site.id}`, { token })).status).toBe(404)
  await failures.assertClean('a failed site, deleted')
}, 60_000)

test('the dashboard flags failed sites with their count and a link to them; the nodes say whether they are ready', async () => {
  await failedSite()
  // The refusal of a site on a node that is not ready is the point below.
  const { page, failures } = await atSitePage((await failedSite()).id, [/POST \S+\/api\/v1\/sites → 409$/])
  await page.goto(server.url.href)
  const notice = page.getByTestId('failed-sites')
  await notice.waitFor()
  expect(await notice.textContent()).toMatch(/^\d+ failed sites?/)
  await checkAccessibility(page, 'the dashboard flagging failed sites')
  await notice.getByRole('link', { name: 'See why, then retry or delete' }).click()
  await page.waitForURL((url) => url.pathname === '/sites' && url.searchParams.get('status') === 'failed')
  await page.getByRole('table', { name: 'Sites' }).waitFor()
  // The played agent's node: ready, since it lays out files by its operator's choice and calls the panel.
  await page.goto(new URL('nodes', server.url).href)
  const row = page.getByRole('row').filter({ hasText: 'edge' })
  await row.waitFor()
  expect(await row.textContent()).toContain('ready')
  await row.getByRole('link', { name: 'edge' }).click()
  await page.getByTestId('node-readiness').waitFor()
  expect(await page.getByTestId('node-readiness').getAttribute('data-ready')).toBe('true')
  await checkAccessibility(page, 'a node’s readiness')
  // The node says another program holds its port: its page says it is not ready, and why, with the code.
  await agent.poll({
    ...filesOnlyNode,
    readiness: {
      ready: false,
      reasons: [{ code: 'port_taken', message: 'port 80 is taken by another program' }],
    },
  })
  await page.reload()
  const readiness = page.getByTestId('node-readiness')
  await page.locator('[data-testid="node-readiness"][data-ready="false"]').waitFor()
  expect(await readiness.textContent()).toContain('port 80 is taken by another program (port_taken)')
  await checkAccessibility(page, 'a node that is not ready')
  // Staff choosing that node for a new site are told why at the field, and nothing is made.
  await page.goto(new URL('sites/new', server.url).href)
  await page.getByLabel('Customer').selectOption({ label: 'Acme' })
  await page.getByLabel('Name').fill('Chosen')
  await page.getByLabel('Domain').fill('chosen.example.com')
  const node = page.getByLabel('Node')
  await node
    .locator('option', { hasText: 'edge (not ready: port 80 is taken' })
    .waitFor({ state: 'attached' })
  await node.selectOption({ label: 'edge (not ready: port 80 is taken by another program)' })
  await checkAccessibility(page, 'the create site form with a node to choose')
  await page.getByRole('button', { name: 'Create site' }).click()
  await page.getByText('The node edge: port 80 is taken by another program.').first().waitFor()
  const chosen = await tp.request('GET', '/api/v1/sites?domain=chosen.example.com', { token })
  expect(((await chosen.json()) as { items: unknown[] }).items).toEqual([])
  await agent.poll(filesOnlyNode)
  await failures.assertClean('the dashboard and the nodes')
}, 60_000)
