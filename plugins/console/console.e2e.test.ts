// The web console end to end, in real Chromium against the real server: an operator signs in and sets up a customer,
// a plan and a user on the customer's team; that member signs in to the portal, creates a WordPress site that the
// machine's nginx, PHP-FPM and MariaDB really serve (its job followed live), a database user whose password is shown
// once and really logs in to MariaDB, and uploads a file that nginx then serves; a second brand, themed through its
// page, wears its name, colour and logo on its own host name, and its member sees nothing of the first brand. Every
// page visited passes axe-core's WCAG 2.1 AA rules with no console error, CSP violation or failed request (refusals
// the test provokes are named and checked), and with CONSOLE_SCREENSHOTS=1 the main pages go to docs/console/.
//
// Set up through the API or the CLI, as an operator would have before anyone used the console (see e2e/stack.ts):
// the first platform staff user (CLI), the database server (API). The local node is the server's own.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import mysql from 'mysql2/promise'
import type { Browser, Locator, Page } from 'playwright-core'
import {
  type ConsoleTab,
  checkPage,
  expectRefusals,
  expectText,
  expectValue,
  expectVariable,
  goTo,
  launchConsoleBrowser,
  openConsole,
  settled,
  signIn,
} from './testing/browser.ts'
import { solidPng } from './testing/png.ts'
import { type ConsoleStack, startConsoleStack } from './testing/stack.ts'

const brandHost = 'brand-b.test'
const tag = crypto.randomUUID().slice(0, 8)
const memberA = { email: `ada-${tag}@acme.test`, password: 'member-a-pass-123' }
const memberB = { email: `bo-${tag}@beta.test`, password: 'member-b-pass-123' }
const siteDomain = `blog-${tag}.acme.test`
const brandB = { name: 'Beta Hosting', primary: '#7c3aed', accent: '#0e7490' }

let stack: ConsoleStack
let browser: Browser
/** The operator's browser, kept signed in from one test to the next. */
let operator: ConsoleTab
const opened: ConsoleTab[] = []
/** What the walk made, for the later steps. */
const made = { customerA: '', siteA: '', brandB: '' }

beforeAll(async () => {
  stack = await startConsoleStack()
  browser = await launchConsoleBrowser([brandHost])
}, 120_000)

afterAll(async () => {
  for (const tab of opened) await tab.close().catch(() => {})
  await browser?.close().catch(() => {})
  await stack?.stop()
}, 60_000)

/**
 * Over plain HTTP at a name other than loopback, Chromium ignores the panel's Cross-Origin-Opener-Policy and says so
 * on the console: a brand's host name is served over HTTPS in earnest, so on `http://brand-b.test` it is expected.
 */
const coopIgnoredOverHttp =
  /^The Cross-Origin-Opener-Policy header has been ignored, because the URL's origin was untrustworthy/

/** A person's own browser context at `path` of the panel (or a full URL). */
async function open(path: string): Promise<ConsoleTab> {
  const url = path.startsWith('http') ? path : `${stack.url}${path}`
  const tab = await openConsole(browser, url, url.includes(brandHost) ? [coopIgnoredOverHttp] : [])
  opened.push(tab)
  return tab
}

/** The id at the end of the page's address (`/customers/cus_…`). */
const idInUrl = (page: Page) => new URL(page.url()).pathname.split('/').at(-1) ?? ''

/**
 * Submits a form the API refuses and checks the refusal is shown at the field its `errors[].location` names:
 * the field is `aria-invalid="true"` and described by the API's own message.
 */
async function expectRefusedAt(
  tab: ConsoleTab,
  submit: Locator,
  path: RegExp,
  field: Locator,
  location: string,
): Promise<void> {
  const answered = tab.page.waitForResponse(
    (response) => path.test(new URL(response.url()).pathname) && response.request().method() === 'POST',
  )
  await submit.click()
  const response = await answered
  expect(response.status()).toBe(422)
  const problem = (await response.json()) as { errors: { location: string; message: string }[] }
  const error = problem.errors.find((item) => item.location === location)
  expect(error).toBeDefined()
  // React shows the refusal once it has read the answer: the field turns invalid, then says why.
  await field.and(tab.page.locator('[aria-invalid="true"]')).waitFor()
  // The message is next to the field: the paragraph its aria-describedby names.
  const describedBy = (await field.getAttribute('aria-describedby')) ?? ''
  const errorId = describedBy.split(' ').find((id) => id.endsWith('-error')) ?? ''
  expect(await tab.page.locator(`[id="${errorId}"]`).textContent()).toBe(error?.message ?? '')
  await expectRefusals(tab, [new RegExp(`request-failed: POST \\S+${path.source.replace('$', '')} → 422$`)])
}

test('an operator signs in, creates a customer, a plan and a user, and puts the user on the customer’s team', async () => {
  operator = await open('/')
  const { page } = operator
  await settled(page, 'Sign in')
  await checkPage(operator, 'the sign-in page', 'sign-in')
  // With the keyboard alone: Tab reaches the e-mail, the password and the button in that order; Enter signs in.
  const focused = () =>
    page.evaluate(
      () => document.activeElement?.getAttribute('autocomplete') ?? document.activeElement?.textContent,
    )
  await page.keyboard.press('Tab')
  expect(await focused()).toBe('username')
  await page.keyboard.type(stack.operator.email)
  await page.keyboard.press('Tab')
  expect(await focused()).toBe('current-password')
  await page.keyboard.type(stack.operator.password)
  await page.keyboard.press('Tab')
  expect(await focused()).toBe('Sign in')
  await page.keyboard.press('Enter')
  await page.locator('[data-testid="usage-cards"]').waitFor()
  await settled(page, 'Dashboard')
  await page.getByText('Operator console').waitFor()
  // Signed in, the first Tab reaches the skip link, which takes the focus past the navigation to the page.
  await page.keyboard.press('Tab')
  expect(await focused()).toBe('Skip to content')
  await page.keyboard.press('Enter')
  expect(await page.evaluate(() => window.location.hash)).toBe('#main')
  await checkPage(operator, 'the operator dashboard, empty')

  // Customers → Create customer, first without a name: the API's refusal shows at the Name field.
  await goTo(page, 'Customers')
  await settled(page, 'Customers')
  await checkPage(operator, 'the customers list, empty')
  await page.getByRole('link', { name: 'Create customer' }).click()
  await settled(page, 'New customer')
  const customerForm = page.getByRole('form', { name: 'Create customer' })
  await expectRefusedAt(
    operator,
    customerForm.getByRole('button', { name: 'Create customer' }),
    /\/api\/v1\/customers$/,
    customerForm.getByLabel('Name'),
    'body.name',
  )
  await checkPage(operator, 'the new customer form, refused at its Name field')
  await customerForm.getByLabel('Name').fill('Acme Corp')
  await customerForm.getByLabel('E-mail').fill('billing@acme.test')
  await customerForm.getByRole('button', { name: 'Create customer' }).click()
  await settled(page, 'Acme Corp')
  made.customerA = idInUrl(page)
  expect(made.customerA).toStartWith('cus_')
  await checkPage(operator, 'the new customer’s page')

  // Plans → New plan, with a negative site limit first: refused at that limit's field.
  await goTo(page, 'Plans')
  await settled(page, 'Plans')
  await checkPage(operator, 'the plans list, empty')
  await page.getByRole('link', { name: 'New plan' }).click()
  await settled(page, 'New plan')
  await page.getByLabel('Name').fill('Starter')
  await page.getByLabel('Sites', { exact: true }).fill('-1')
  await page.getByLabel('Disk (MB)').fill('2048')
  await expectRefusedAt(
    operator,
    page.getByRole('button', { name: 'Create plan' }),
    /\/api\/v1\/plans$/,
    page.getByLabel('Sites', { exact: true }),
    'body.limits.sites',
  )
  await checkPage(operator, 'the new plan form, refused at its Sites limit')
  await page.getByLabel('Sites', { exact: true }).fill('3')
  await page.getByRole('button', { name: 'Create plan' }).click()
  await settled(page, 'Plan Starter')
  await checkPage(operator, 'the new plan’s page')
  await goTo(page, 'Plans')
  await settled(page, 'Plans')
  await page.getByRole('link', { name: 'Starter' }).waitFor()
  await checkPage(operator, 'the plans list', 'plans')

  // Staff and users → Create user: a plain user with a password, for the customer's team.
  await goTo(page, 'Staff and users')
  await settled(page, 'Staff and users')
  await checkPage(operator, 'the users list')
  await page.getByRole('link', { name: 'Create user' }).click()
  await settled(page, 'New user')
  const userForm = page.getByRole('form', { name: 'Create user' })
  await userForm.getByLabel('E-mail').fill(memberA.email)
  await userForm.getByLabel('Password').fill(memberA.password)
  await userForm.getByRole('button', { name: 'Create user' }).click()
  await settled(page, memberA.email)
  await checkPage(operator, 'the new user’s page')

  // The customer's page → Add member, as the owner.
  await goTo(page, 'Customers')
  await settled(page, 'Customers')
  await checkPage(operator, 'the customers list')
  await page.getByRole('link', { name: 'Acme Corp' }).click()
  await settled(page, 'Acme Corp')
  const addMember = page.getByRole('form', { name: 'Add member' })
  await addMember.getByLabel('E-mail').fill(memberA.email)
  await addMember.getByLabel('Role').selectOption('owner')
  await addMember.getByRole('button', { name: 'Add member' }).click()
  await expectText(addMember.getByRole('status'), `${memberA.email} is now on the team as owner.`)
  const team = page.getByRole('table', { name: 'Team members' })
  await team.getByRole('cell', { name: memberA.email, exact: true }).waitFor()
  await checkPage(operator, 'the customer’s page with its team', 'customer-detail')
}, 90_000)

test('the member creates a WordPress site and watches it provision live, a database user whose password works, and uploads a file nginx serves', async () => {
  const member = await open('/')
  const { page } = member
  await signIn(page, memberA.email, memberA.password)
  await settled(page, 'Welcome, Acme Corp')
  await page.getByText('Customer portal').waitFor()
  await checkPage(member, 'the member’s dashboard, empty')

  // Sites → Create site: the job is followed live on the same page, never reloaded.
  await goTo(page, 'Sites')
  await settled(page, 'Sites')
  await checkPage(member, 'the sites list, empty')
  await page.getByRole('link', { name: 'Create site' }).click()
  await settled(page, 'Create site')
  await page.getByLabel('Customer').selectOption({ label: 'Acme Corp' })
  await page.getByLabel('Name').fill('Acme Blog')
  await page.getByLabel('Domain').fill(siteDomain)
  await expectValue(page.getByLabel('Type'), 'wordpress')
  // The provider's nodes are staff's business: the member's form says nothing of them (no Node field either).
  expect(await page.locator('main').innerText()).not.toMatch(/\bnodes?\b/i)
  await checkPage(member, 'the create site form')
  // Every status the job element shows, recorded in this document: a reload would lose the record.
  await page.evaluate(() => {
    const seen: string[] = []
    ;(window as unknown as { jobStatuses: string[] }).jobStatuses = seen
    const note = () => {
      const status = document.querySelector('[data-testid="job-progress"]')?.getAttribute('data-status')
      if (status && seen.at(-1) !== status) seen.push(status)
    }
    new MutationObserver(note).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-status'],
    })
  })
  await page.getByRole('button', { name: 'Create site' }).click()
  await page.locator('[data-testid="job-progress"]').waitFor()
  // WordPress's generated admin password, shown once beside the job.
  await expectText(page.locator('[data-testid="secret-value"]'), /^\S{12,}$/)
  await page.locator('[data-testid="job-progress"][data-status="succeeded"]').waitFor({ timeout: 90_000 })
  const statuses = await page.evaluate(() => (window as unknown as { jobStatuses?: string[] }).jobStatuses)
  // Seen unfinished first, then finished, by the same page: followed live.
  expect(statuses?.[0]).toBeOneOf(['queued', 'running'])
  expect(statuses?.at(-1)).toBe('succeeded')
  await checkPage(member, 'the created site with its finished job')
  await page.getByRole('link', { name: 'Go to the site' }).click()
  await settled(page, 'Acme Blog')
  made.siteA = idInUrl(page)
  expect(made.siteA).toStartWith('site_')
  await page.locator('[data-testid="job-progress"][data-status="succeeded"]').waitFor()
  await checkPage(member, 'the site’s page with its job', 'site-detail')
  await goTo(page, 'Sites')
  await settled(page, 'Sites')
  await page.getByRole('link', { name: 'Acme Blog' }).waitFor()
  await checkPage(member, 'the sites list', 'sites')
  // WordPress really answers on the machine's nginx.
  const home = await fetch(`http://127.0.0.1:${stack.sitesHttpPort}/`, {
    headers: { host: siteDomain },
    redirect: 'manual',
  })
  expect([200, 301, 302]).toContain(home.status)

  // Database users → Create database user, with access to the site's database: the password is shown once.
  await goTo(page, 'Database users')
  await settled(page, 'Database users')
  await checkPage(member, 'the database users list, empty')
  await page.getByRole('link', { name: 'Create database user' }).click()
  await settled(page, 'Create database user')
  await expectValue(page.getByLabel('Customer'), made.customerA)
  await page.getByLabel('Name', { exact: true }).fill('reporting')
  const grants = page.getByRole('group', { name: 'Grants' })
  const siteDatabase = grants.getByRole('checkbox').first()
  await siteDatabase.check()
  const databaseName = (await grants.locator('label code').first().textContent()) ?? ''
  expect(databaseName).not.toBe('')
  await checkPage(member, 'the create database user form')
  await page.getByRole('button', { name: 'Create database user' }).click()
  await settled(page, 'Database user created')
  const password = (await page.locator('[data-testid="secret-value"]').textContent()) ?? ''
  const username =
    (await page
      .locator('dl.facts > div')
      .filter({ has: page.locator('dt', { hasText: 'User name' }) })
      .locator('dd code')
      .textContent()) ?? ''
  stack.remember(username)
  expect(password.length).toBeGreaterThanOrEqual(16)
  await page.locator('[data-testid="job-progress"][data-status="succeeded"]').waitFor({ timeout: 30_000 })
  await checkPage(member, 'the new database user with its password', 'database-user-password')
  // The password really logs in to MariaDB, as that user, and reaches the granted database (WordPress's tables),
  // on the server the API names (the node's own MariaDB, when it runs one).
  const users = await stack.call<{ items: { username: string; host: string; port: number }[] }>(
    'GET',
    '/database-users?limit=100',
  )
  const server = users.body.items.find((item) => item.username === username)
  expect(server).toBeDefined()
  const login = await mysql.createConnection({
    host: server?.host,
    port: server?.port,
    user: username,
    password,
    database: databaseName,
  })
  try {
    const [who] = await login.query<mysql.RowDataPacket[]>('SELECT CURRENT_USER() AS who')
    expect(String(who[0]?.who)).toStartWith(`${username}@`)
    const [tables] = await login.query<mysql.RowDataPacket[]>('SHOW TABLES')
    expect(tables.map((row) => Object.values(row)[0])).toContainEqual(expect.stringMatching(/options$/))
  } finally {
    await login.end()
  }
  // Away and back: the password is not shown again, on the list or the user's page.
  await goTo(page, 'Sites')
  await settled(page, 'Sites')
  await goTo(page, 'Database users')
  await settled(page, 'Database users')
  await page.getByRole('link', { name: username }).click()
  await settled(page, `Database user ${username}`)
  expect(await page.locator('[data-testid="secret-value"]').count()).toBe(0)
  expect(await page.content()).not.toContain(password)
  await checkPage(member, 'the database user’s page, its password not shown again')

  // Sites → the site → Files → htdocs → Upload: listed, and served by the site's nginx.
  await goTo(page, 'Sites')
  await settled(page, 'Sites')
  await page.getByRole('link', { name: 'Acme Blog' }).click()
  await settled(page, 'Acme Blog')
  // The site's tabs are the only links of the page named so.
  await page.getByRole('main').getByRole('link', { name: 'Files', exact: true }).click()
  await settled(page, 'Files')
  await page.getByRole('link', { name: 'htdocs/' }).click()
  await page.getByRole('table', { name: 'Files in /htdocs' }).waitFor()
  const fileName = `hello-${tag}.txt`
  const content = `Hello from the console, ${tag}\n`
  await page.getByLabel('Upload files').setInputFiles({
    name: fileName,
    mimeType: 'text/plain',
    buffer: Buffer.from(content),
  })
  await page.getByRole('button', { name: 'Upload', exact: true }).click()
  await page.getByText('1 of 1 uploaded.').waitFor()
  const listed = page.getByRole('table', { name: 'Files in /htdocs' }).getByRole('link', { name: fileName })
  await listed.waitFor()
  await checkPage(member, 'the file manager after an upload', 'files')
  const served = await fetch(`http://127.0.0.1:${stack.sitesHttpPort}/${fileName}`, {
    headers: { host: siteDomain },
  })
  expect(served.status).toBe(200)
  expect(await served.text()).toBe(content)

  // The dashboard counts the new site.
  await goTo(page, 'Dashboard')
  await settled(page, 'Welcome, Acme Corp')
  await expectText(page.locator('.card').filter({ hasText: 'Sites' }).locator('.card-value'), '1')
  await checkPage(member, 'the member’s dashboard', 'dashboard-member')
}, 150_000)

test('a second brand, themed on its page, wears its name, colour and logo on its own host name, and its member sees nothing of the first brand', async () => {
  const { page } = operator
  // Brands → Create brand → its page: name, colours, a PNG logo and its host name.
  await goTo(page, 'Brands')
  await settled(page, 'Brands')
  await checkPage(operator, 'the brands list')
  await page.getByLabel('Name').fill(brandB.name)
  await page.getByRole('button', { name: 'Create brand' }).click()
  await settled(page, brandB.name)
  made.brandB = idInUrl(page)
  expect(made.brandB).toStartWith('brd_')
  await page.getByLabel('Primary colour').fill(brandB.primary)
  await page.getByLabel('Accent colour').fill(brandB.accent)
  await page.getByLabel('Logo', { exact: true }).setInputFiles({
    name: 'beta.png',
    mimeType: 'image/png',
    buffer: Buffer.from(solidPng(brandB.primary)),
  })
  await page.getByRole('img', { name: `${brandB.name} logo` }).waitFor()
  await page.getByLabel('Host names').fill(brandHost)
  await page.getByRole('button', { name: 'Save brand' }).click()
  await page.locator('dd').filter({ hasText: brandHost }).waitFor()
  await checkPage(operator, 'the brand’s page after saving its look', 'brand-theme')
  await goTo(page, 'Brands')
  await settled(page, 'Brands')
  await page.getByRole('cell', { name: brandHost }).waitFor()
  await checkPage(operator, 'the brands list with two brands', 'brands')

  // A customer of brand B, and a new user made from its page and put on its team.
  await goTo(page, 'Customers')
  await settled(page, 'Customers')
  await page.getByRole('link', { name: 'Create customer' }).click()
  await settled(page, 'New customer')
  const customerForm = page.getByRole('form', { name: 'Create customer' })
  await customerForm.getByLabel('Name').fill('Beta Widgets')
  await customerForm.getByLabel('Brand').selectOption({ label: brandB.name })
  await customerForm.getByRole('button', { name: 'Create customer' }).click()
  await settled(page, 'Beta Widgets')
  await page.getByRole('link', { name: 'Create a new user first' }).click()
  await settled(page, 'New user')
  const userForm = page.getByRole('form', { name: 'Create user' })
  await userForm.getByLabel('E-mail').fill(memberB.email)
  await userForm.getByLabel('Password').fill(memberB.password)
  await userForm.getByRole('button', { name: 'Create user' }).click()
  const addToTeam = page.getByRole('form', { name: 'Add member' })
  await addToTeam.getByLabel('Role').selectOption('admin')
  await checkPage(operator, 'adding the new user to the brand B customer’s team')
  await addToTeam.getByRole('button', { name: 'Add member' }).click()
  await settled(page, 'Beta Widgets')
  await page
    .getByRole('table', { name: 'Team members' })
    .getByRole('cell', { name: memberB.email, exact: true })
    .waitFor()
  await checkPage(operator, 'the brand B customer’s page with its team')

  // Brand B's sign-in page, on its host name and with ?brand=, before anyone signs in.
  const expectBrandB = async (tab: ConsoleTab, what: string, shot?: string) => {
    await settled(tab.page, 'Sign in')
    await expectText(tab.page.locator('.sign-in-brand'), brandB.name)
    await tab.page.locator('img.sign-in-logo').waitFor()
    await expectVariable(tab.page, '--brand-primary', brandB.primary)
    await expectVariable(tab.page, '--brand-accent', brandB.accent)
    await checkPage(tab, what, shot)
  }
  const byHost = await open(`http://${brandHost}:${stack.port}/`)
  await expectBrandB(byHost, 'brand B’s sign-in page on its host name', 'sign-in-brand-b')
  const byParameter = await open(`/?brand=${made.brandB}`)
  await expectBrandB(byParameter, 'brand B’s sign-in page by ?brand=')
  await byParameter.close()

  // Brand B's member signs in on its host name and keeps its theme; brand A's site and customer are not there.
  const { page: memberPage } = byHost
  await signIn(memberPage, memberB.email, memberB.password)
  await settled(memberPage, 'Welcome, Beta Widgets')
  await expectText(memberPage.locator('.topbar .brand'), brandB.name)
  await expectVariable(memberPage, '--brand-primary', brandB.primary)
  // Its view counts only its own customer's sites: none.
  await expectText(memberPage.locator('.card').filter({ hasText: 'Sites' }).locator('.card-value'), '0')
  await checkPage(byHost, 'brand B member’s dashboard', 'dashboard-brand-b')
  await goTo(memberPage, 'Sites')
  await settled(memberPage, 'Sites')
  await memberPage.getByText('No sites yet.', { exact: false }).waitFor()
  expect(await memberPage.locator('main').textContent()).not.toContain('Acme Blog')
  expect(await memberPage.locator('main').textContent()).not.toContain(siteDomain)
  await checkPage(byHost, 'brand B member’s sites list')
  // A direct address of brand A's site: refused as not found, and shown so.
  await memberPage.goto(`http://${brandHost}:${stack.port}/sites/${made.siteA}`)
  await settled(memberPage, 'Site')
  await expectText(memberPage.getByRole('alert'), /not found/i)
  await expectRefusals(byHost, [new RegExp(`request-failed: GET \\S+/api/v1/sites/${made.siteA} → 404$`)])
  await expectVariable(memberPage, '--brand-primary', brandB.primary)
  await checkPage(byHost, 'brand A’s site seen by brand B’s member')
  await memberPage.goto(`http://${brandHost}:${stack.port}/customers/${made.customerA}`)
  await settled(memberPage, 'Customer')
  await expectText(memberPage.getByRole('alert'), /not found/i)
  await expectRefusals(byHost, [
    new RegExp(`request-failed: GET \\S+/api/v1/customers/${made.customerA} → 404$`),
  ])
  await checkPage(byHost, 'brand A’s customer seen by brand B’s member')
}, 90_000)

test('the operator’s activity and platform pages show what the walk did', async () => {
  const { page } = operator
  await goTo(page, 'Dashboard')
  await settled(page, 'Dashboard')
  await expectText(page.locator('.card').filter({ hasText: 'Customers' }).locator('.card-value'), '2')
  await checkPage(operator, 'the operator dashboard', 'dashboard-staff')
  await goTo(page, 'Customers')
  await settled(page, 'Customers')
  await page.getByRole('link', { name: 'Beta Widgets' }).waitFor()
  await checkPage(operator, 'the customers list of both brands', 'customers')
  await goTo(page, 'Jobs')
  await settled(page, 'Jobs')
  await expectText(page.getByRole('table', { name: /jobs/i }), /succeeded/)
  await checkPage(operator, 'the jobs list', 'jobs')
  await goTo(page, 'Audit log')
  await settled(page, 'Audit log')
  await expectText(page.getByRole('table', { name: /audit/i }), /site\.create/)
  await checkPage(operator, 'the audit log', 'audit-log')
  await goTo(page, 'Webhooks')
  await settled(page, 'Webhooks')
  await checkPage(operator, 'the webhooks list', 'webhooks')
  await goTo(page, 'Nodes')
  await settled(page, 'Nodes')
  await page.getByRole('link', { name: 'local' }).waitFor()
  await checkPage(operator, 'the nodes list', 'nodes')
  await goTo(page, 'Database servers')
  await settled(page, 'Database servers')
  await checkPage(operator, 'the database servers list')
  await goTo(page, 'Sites')
  await settled(page, 'Sites')
  await page.getByRole('link', { name: 'Acme Blog' }).waitFor()
  await checkPage(operator, 'the operator’s sites list')
}, 60_000)
