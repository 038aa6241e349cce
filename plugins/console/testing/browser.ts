// The browser side of the console's end-to-end tests and bench: Chromium with the kit's flags plus host names mapped
// to loopback (a brand's own host name reaches the panel as a browser at that name would), pages whose failures are
// recorded from the first request, and the check every visited page passes (axe WCAG 2.1 AA, nothing gone wrong),
// with a screenshot into docs/console when CONSOLE_SCREENSHOTS=1.

import { join } from 'node:path'
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core'
import {
  checkAccessibility,
  chromiumFlags,
  collectPageFailures,
  ensureChromium,
  type PageFailures,
  screenshotTo,
} from '../../../hosts/testing/browser.ts'
import { waitFor } from '../../../hosts/testing/index.ts'

/** Where the screenshots of the console's main pages go (docs/console.md shows them). */
export const screenshotDir = join(import.meta.dir, '..', '..', '..', 'docs', 'console')

/** Whether this run writes screenshots: only when asked, so CI never rewrites the committed ones. */
export const takingScreenshots = process.env.CONSOLE_SCREENSHOTS === '1'

/**
 * A headless Chromium with the kit's {@link chromiumFlags} that resolves each of `hosts` to 127.0.0.1
 * (`--host-resolver-rules`), since the kit's `launchBrowser` takes no extra switches. Close it in `afterAll`.
 */
export async function launchConsoleBrowser(hosts: readonly string[] = []): Promise<Browser> {
  const rules = hosts.map((host) => `MAP ${host} 127.0.0.1`).join(', ')
  return chromium.launch({
    executablePath: await ensureChromium(),
    headless: true,
    args: [...chromiumFlags, ...(rules ? [`--host-resolver-rules=${rules}`] : [])],
  })
}

/**
 * The app asks `GET /me` to learn whether anyone is signed in; before signing in the answer is 401, which is not a
 * failure. Nothing else is allowed on every page: a refusal a test provokes is checked and cleared by that test.
 */
const signedOutProbe = /^GET \S+\/api\/v1\/me → 401$/

/** One person's browser: a context of its own (cookies), its page, and what went wrong on it. */
export interface ConsoleTab {
  readonly context: BrowserContext
  readonly page: Page
  readonly failures: PageFailures
  close(): Promise<void>
}

/** Opens `url` in a fresh context (a person of their own), recording failures from the first request. */
export async function openConsole(
  browser: Browser,
  url: string,
  allow: readonly (string | RegExp)[] = [],
): Promise<ConsoleTab> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  // A step that cannot happen fails in seconds, well inside the test's own timeout, naming what it waited for.
  context.setDefaultTimeout(20_000)
  const page = await context.newPage()
  const failures = await collectPageFailures(page, { allow: [signedOutProbe, ...allow] })
  await page.goto(url)
  return { context, page, failures, close: () => context.close() }
}

/** Signs in on the sign-in page showing in `page` and waits for the dashboard's usage cards. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor()
  await page.getByLabel('E-mail').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.locator('[data-testid="usage-cards"]').waitFor()
}

/** Follows a link of the sidebar ("Areas"), as a person clicks it. */
export async function goTo(page: Page, area: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: area, exact: true }).click()
}

/** Waits until the page's heading says `title` and nothing on it is still loading. */
export async function settled(page: Page, title: string | RegExp): Promise<void> {
  await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor()
  await waitFor(
    `“${title}” to finish loading`,
    async () => {
      if ((await page.locator('.loading').count()) === 0) return true
      await Bun.sleep(50)
      return false
    },
    20_000,
  )
}

/**
 * What every visited page passes: axe-core's WCAG 2.0/2.1 A and AA rules and no failure (console error, CSP
 * violation, failed same-origin request) since the last check; then, when screenshots are on, its picture as
 * `docs/console/<shot>.png`.
 */
export async function checkPage(tab: ConsoleTab, name: string, shot?: string): Promise<void> {
  await checkAccessibility(tab.page, name)
  await tab.failures.assertClean(name)
  if (shot && takingScreenshots) await screenshotTo(tab.page, join(screenshotDir, `${shot}.png`))
}

/**
 * Checks that the failures recorded since the last check are exactly the refusals the test provoked (each a
 * pattern matched by one failure), then forgets them.
 */
export async function expectRefusals(tab: ConsoleTab, expected: readonly RegExp[]): Promise<void> {
  // As assertClean does: what the page queued before now is recorded first.
  await tab.page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)))
  const texts = tab.failures.list().map((failure) => `${failure.kind}: ${failure.text}`)
  const unexpected = texts.filter((text) => !expected.some((pattern) => pattern.test(text)))
  const missing = expected.filter((pattern) => !texts.some((text) => pattern.test(text)))
  if (unexpected.length > 0 || missing.length > 0)
    throw new Error(
      `Expected exactly the refusals ${expected.join(', ')}; recorded:\n${texts.join('\n') || '(none)'}`,
    )
  tab.failures.clear()
}

/** The value of a CSS custom property on the document, as the app's theme set it. */
export function cssVariable(page: Page, name: string): Promise<string> {
  return page.evaluate(
    (property) => getComputedStyle(document.documentElement).getPropertyValue(property).trim(),
    name,
  )
}

/** Waits until the CSS custom property `name` of the document is `expected` (the theme comes with `/branding`). */
export async function expectVariable(page: Page, name: string, expected: string, timeoutMs = 10_000) {
  let last = ''
  try {
    await waitFor(
      `${name} to be ${expected}`,
      async () => {
        last = await cssVariable(page, name)
        if (last === expected) return true
        await Bun.sleep(50)
        return false
      },
      timeoutMs,
    )
  } catch {
    throw new Error(`Expected ${name} to be ${expected} on ${page.url()}; it is ${JSON.stringify(last)}`)
  }
}

/**
 * Waits until `locator`'s text is `expected` (trimmed, exactly) or matches it; throws naming the last text seen.
 * bun:test's `expect` knows nothing of locators, so waiting on what the page shows is done here.
 */
export async function expectText(
  locator: Locator,
  expected: string | RegExp,
  timeoutMs = 20_000,
): Promise<void> {
  let last: string | null = null
  const matches = (text: string) =>
    typeof expected === 'string' ? text.trim() === expected : expected.test(text)
  try {
    await waitFor(
      `text ${expected}`,
      async () => {
        last = await locator.textContent({ timeout: 1_000 }).catch(() => null)
        if (last !== null && matches(last)) return true
        await Bun.sleep(50)
        return false
      },
      timeoutMs,
    )
  } catch {
    throw new Error(`Expected ${locator} to show ${expected}; it showed ${JSON.stringify(last)}`)
  }
}

/** Waits until the form control `locator` holds `expected`. */
export async function expectValue(locator: Locator, expected: string, timeoutMs = 20_000): Promise<void> {
  let last: string | null = null
  try {
    await waitFor(
      `value ${expected}`,
      async () => {
        last = await locator.inputValue({ timeout: 1_000 }).catch(() => null)
        if (last === expected) return true
        await Bun.sleep(50)
        return false
      },
      timeoutMs,
    )
  } catch {
    throw new Error(`Expected ${locator} to hold ${expected}; it held ${JSON.stringify(last)}`)
  }
}
