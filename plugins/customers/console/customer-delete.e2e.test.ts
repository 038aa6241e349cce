// Deleting a customer from its page in Chromium: staff with `customer:delete` find "Delete customer" on the
// customer's page, confirm it, watch its job (the customer's site deleted on its node, which the test plays), and
// land on the list once the customer is gone. The page passes axe's WCAG 2.1 AA rules with nothing failing.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { checkAccessibility, collectPageFailures, launchBrowser } from '../../../hosts/testing/browser.ts'
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

let tp: TestPanel
let server: RunningServer
let browser: Browser
let token: string
let agent: ReturnType<typeof playAgent>

beforeAll(async () => {
  tp = await createTestPanel({ jobs: { pollIntervalMs: 10, retryBaseMs: 100, retryMaxMs: 200 } })
  tp.panel.start()
  token = await tp.token()
  agent = (await nodeWithPlayedAgent(tp, token)).agent
  server = servePanel(tp.panel, { hostname: '127.0.0.1', port: 0 })
  browser = await launchBrowser()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await tp?.panel.close()
})

test('“Delete customer” on its page, confirmed, follows the job and goes back to the list once it is gone', async () => {
  const customer = (await (
    await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Closing Ltd' } })
  ).json()) as { id: string }
  const site = (await (
    await tp.request('POST', '/api/v1/sites', {
      token,
      body: { customerId: customer.id, name: 'Shop', type: 'wordpress', domain: 'closing.example.com' },
    })
  ).json()) as { id: string }
  await agent.answer(await agent.command(site.id, 'provision'))
  await waitFor('the site to be active', async () => {
    const read = (await (await tp.request('GET', `/api/v1/sites/${site.id}`, { token })).json()) as {
      status: string
    }
    return read.status === 'active'
  })

  const page = await (await browser.newContext()).newPage()
  const failures = await collectPageFailures(page, { allow: [/GET \S+\/api\/v1\/me → 401$/] })
  await page.goto(server.url.href)
  await page.getByLabel('E-mail').fill((await tp.staff()).email)
  await page.getByLabel('Password').fill(testPassword)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('navigation', { name: 'Areas' }).waitFor()
  await page.goto(new URL(`customers/${customer.id}`, server.url).href)
  await page.getByRole('heading', { level: 1, name: 'Closing Ltd' }).waitFor()
  await checkAccessibility(page, 'a customer’s page with its Delete')

  await page.getByRole('button', { name: 'Delete customer' }).click()
  await page.getByRole('button', { name: 'Confirm delete' }).click()
  await page.getByText('Deleting Closing Ltd and everything it owns…').waitFor()
  await checkAccessibility(page, 'a customer being deleted')
  await agent.answer(await agent.command(site.id, 'delete'))
  await page.waitForURL((url) => url.pathname === '/customers')
  expect((await tp.request('GET', `/api/v1/customers/${customer.id}`, { token })).status).toBe(404)
  expect((await tp.request('GET', `/api/v1/sites/${site.id}`, { token })).status).toBe(404)
  await failures.assertClean('a customer deleted from its page')
}, 90_000)
