// Deleting a plan from its page in Chromium: a plan a subscription holds is refused, and the page says why and what
// still holds it (the 409's blockers); a plan nothing holds is deleted and the page goes back to the list. Every
// state passes axe's WCAG 2.1 AA rules with nothing else failing on the page.

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
  type RunningServer,
  servePanel,
  type TestPanel,
  testPassword,
} from '../../../hosts/testing/index.ts'
import { billingCalls } from '../testing/billing-calls.ts'

let tp: TestPanel
let server: RunningServer
let browser: Browser
let calls: ReturnType<typeof billingCalls>
let token: string

beforeAll(async () => {
  tp = await createTestPanel()
  token = await tp.token()
  calls = billingCalls(tp, token)
  server = servePanel(tp.panel, { hostname: '127.0.0.1', port: 0 })
  browser = await launchBrowser()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await tp?.panel.close()
})

/** Staff signed in in a browser of their own, at the plan's page. */
async function atPlanPage(planId: string, name: string): Promise<{ page: Page; failures: PageFailures }> {
  const page = await (await browser.newContext()).newPage()
  const failures = await collectPageFailures(page, {
    allow: [/GET \S+\/api\/v1\/me → 401$/, /DELETE \S+\/api\/v1\/plans\/\S+ → 409$/],
  })
  await page.goto(server.url.href)
  await page.getByLabel('E-mail').fill((await tp.staff()).email)
  await page.getByLabel('Password').fill(testPassword)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('navigation', { name: 'Areas' }).waitFor()
  await page.goto(new URL(`plans/${planId}`, server.url).href)
  await page.getByRole('heading', { level: 1, name: `Plan ${name}` }).waitFor()
  return { page, failures }
}

test('a plan a subscription holds is refused, and its page says why and what holds it', async () => {
  const plan = await calls.newPlan({ sites: 1 })
  await calls.subscribe(await calls.newCustomer(), plan.id)
  const { page, failures } = await atPlanPage(plan.id, plan.name)
  await page.getByRole('button', { name: 'Delete plan' }).click()
  await page.getByRole('button', { name: 'Confirm delete' }).click()
  const alert = page.getByRole('alert').filter({ hasText: 'still in use' })
  await alert.waitFor()
  expect(await alert.textContent()).toContain('subscriptions (1)')
  const held = page.getByRole('list', { name: 'Still depends on it' })
  expect(await held.textContent()).toBe('subscriptions: 1')
  await checkAccessibility(page, 'a plan refused its deletion')
  expect((await tp.request('GET', `/api/v1/plans/${plan.id}`, { token })).status).toBe(200)
  await failures.assertClean('a plan refused its deletion')
}, 60_000)

test('a plan nothing holds is deleted from its page, which goes back to the list', async () => {
  const plan = await calls.newPlan({ sites: 2 })
  const { page, failures } = await atPlanPage(plan.id, plan.name)
  await page.getByRole('button', { name: 'Delete plan' }).click()
  await page.getByRole('button', { name: 'Confirm delete' }).click()
  await page.waitForURL((url) => url.pathname === '/plans')
  expect((await tp.request('GET', `/api/v1/plans/${plan.id}`, { token })).status).toBe(404)
  await failures.assertClean('a plan deleted')
}, 60_000)
