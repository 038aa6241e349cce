// The browser test kit against a tiny site served with the web console's strict CSP: Chromium launches, the page's
// own script runs, axe-core runs under the CSP, and collectPageFailures catches what the CSP refuses.

import { afterAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { waitFor } from '../../core/testing/async.ts'
import {
  checkAccessibility,
  chromiumPath,
  ensureChromium,
  launchBrowser,
  openPage,
  screenshotTo,
} from './browser.ts'

const csp = "default-src 'self'; script-src 'self'"
const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>` +
  `<script src="/app.js" defer></script></head><body><main><h1>${title}</h1>${body}</main></body></html>`
const pages: Record<string, string> = {
  '/': page('Clean', '<p id="status">waiting</p><button type="button">Save</button>'),
  '/flawed': page(
    'Flawed',
    '<p id="status">waiting</p><img src="/pixel.svg"><button type="button"></button>',
  ),
  '/inline': page('Inline', `<p id="status">waiting</p><script>document.title = 'inline ran'</script>`),
  '/broken': page('Broken', '<p id="status">waiting</p><img src="/missing.svg" alt="Missing">'),
}
const appScript = `document.getElementById('status').textContent = 'script ran'
if (location.pathname === '/broken') {
  console.error('the console says no')
  setTimeout(() => { throw new Error('thrown by the page') })
}`
const pixel = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'

const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(request) {
    const { pathname } = new URL(request.url)
    const html = pages[pathname]
    if (html) {
      return new Response(html, {
        headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': csp },
      })
    }
    if (pathname === '/app.js')
      return new Response(appScript, { headers: { 'content-type': 'text/javascript' } })
    if (pathname === '/pixel.svg')
      return new Response(pixel, { headers: { 'content-type': 'image/svg+xml' } })
    return new Response('not found', { status: 404 })
  },
})
const base = `http://127.0.0.1:${server.port}`
const screenshots = join(tmpdir(), `plinth-browser-test-${process.pid}`)

let launched: Promise<Browser> | undefined
/** The one browser this file's tests share, launched by the first test that asks. */
const browser = () => {
  launched ??= launchBrowser()
  return launched
}

afterAll(async () => {
  if (launched) await (await launched.catch(() => undefined))?.close()
  server.stop(true)
  rmSync(screenshots, { recursive: true, force: true })
})

// Installing Chromium on a bare machine takes minutes; the tests after this one find it there.
test("ensureChromium finds Debian's Chromium, installing it when missing", async () => {
  expect(await ensureChromium()).toBe(chromiumPath)
  expect(Bun.spawnSync([chromiumPath, '--version']).stdout.toString()).toContain('Chromium')
}, 600_000)

test("the kit launches Chromium and the page's own script runs under the strict CSP", async () => {
  const { page, failures, close } = await openPage(await browser(), `${base}/`)
  await page.locator('#status', { hasText: 'script ran' }).waitFor()
  const shot = await screenshotTo(page, join(screenshots, 'clean.png'))
  expect([...(await Bun.file(shot).bytes()).subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47])
  await failures.assertClean()
  await close()
})

test('axe-core runs under the CSP and passes a clean page', async () => {
  const { page, failures, close } = await openPage(await browser(), `${base}/`)
  await page.locator('#status', { hasText: 'script ran' }).waitFor()
  await checkAccessibility(page, 'the clean page')
  // Injecting axe through the DevTools protocol is not an inline script: the CSP saw nothing to refuse.
  await failures.assertClean()
  await close()
})

test('axe-core reports an image without alt text and a button without a name, with rule, impact and target', async () => {
  const { page, close } = await openPage(await browser(), `${base}/flawed`)
  await page.locator('#status', { hasText: 'script ran' }).waitFor()
  const error = await checkAccessibility(page, 'the flawed page').catch((thrown: Error) => thrown)
  expect(error).toBeInstanceOf(Error)
  const message = (error as Error).message
  expect(message).toContain('on the flawed page')
  expect(message).toMatch(/- image-alt \(critical\): Images must have alternative text https:\/\//)
  expect(message).toMatch(/- button-name \(critical\): Buttons must have discernible text https:\/\//)
  // axe names each element by the shortest selector unique on the page.
  expect(message).toMatch(/image-alt .*\n {4}img$/m)
  expect(message).toMatch(/button-name .*\n {4}button$/m)
  await close()
})

test('collectPageFailures catches the inline script the CSP refuses', async () => {
  const { page, failures, close } = await openPage(await browser(), `${base}/inline`)
  await page.locator('#status', { hasText: 'script ran' }).waitFor()
  expect(await page.title()).toBe('Inline')
  await waitFor('the securitypolicyviolation event', () =>
    failures.list().some((failure) => failure.text.includes('script-src-elem refused inline')),
  )
  const error = await failures.assertClean('the inline page').catch((thrown: Error) => thrown)
  expect(error).toBeInstanceOf(Error)
  expect((error as Error).message).toContain('The page went wrong (the inline page)')
  expect((error as Error).message).toMatch(
    /- csp-violation: Executing inline script violates .*Content Security Policy/,
  )
  expect((error as Error).message).toMatch(/- csp-violation: enforce script-src-elem refused inline at http:/)
  await close()
})

test('collectPageFailures records console errors, page errors and failed same-origin requests, and allows the expected', async () => {
  const { page, failures, close } = await openPage(await browser(), `${base}/broken`)
  await page.locator('#status', { hasText: 'script ran' }).waitFor()
  await waitFor('the page error', () => failures.list().some((failure) => failure.kind === 'page-error'))
  await page.evaluate(() => fetch('/api/absent'))
  await waitFor('the failed fetch', () =>
    failures.list().some((failure) => failure.text.includes('/api/absent')),
  )
  const texts = failures.list().map((failure) => `${failure.kind}: ${failure.text}`)
  expect(texts).toContain(`request-failed: GET ${base}/missing.svg → 404`)
  expect(texts).toContain(`request-failed: GET ${base}/api/absent → 404`)
  expect(texts.some((text) => text.startsWith('console-error: the console says no'))).toBe(true)
  expect(texts.some((text) => text.startsWith('page-error: Error: thrown by the page'))).toBe(true)
  await close()

  const allowing = await openPage(await browser(), `${base}/broken`, {
    allow: ['missing.svg', 'the console says no', /thrown by the page/],
  })
  await allowing.page.locator('#status', { hasText: 'script ran' }).waitFor()
  await Bun.sleep(100)
  await allowing.failures.assertClean()
  await allowing.close()
})
