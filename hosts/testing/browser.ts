// The browser test kit: Debian's Chromium driven by playwright-core from bun test, with what every end-to-end test
// of the web console checks: no console errors, page errors, CSP violations or failed requests, and axe-core's
// WCAG 2.0/2.1 A and AA rules, both under the console's strict Content-Security-Policy.

import { accessSync, constants, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Result as AxeRule } from 'axe-core'
import { type Browser, chromium, type Page } from 'playwright-core'

/** Where Debian's `chromium` package puts its launcher. */
export const chromiumPath = '/usr/bin/chromium'

/**
 * The switches every test browser runs with, beside playwright's own (which already add
 * `--disable-dev-shm-usage`, `--disable-extensions` and a fresh profile): no sandbox (tests run as root), no GPU,
 * no QUIC, and nothing that reaches the network by itself.
 */
export const chromiumFlags: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** The axe-core rule tags {@link checkAccessibility} runs: WCAG 2.0 and 2.1, levels A and AA. */
export const wcagTags: readonly string[] = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']

const debianPackages = ['chromium', 'fonts-dejavu-core']
let installing: Promise<string> | undefined

/**
 * The path of Debian's Chromium, installing it (with a font, so screenshots have text) when it is missing. Never
 * skips: without root and apt-get, or when apt-get fails, it throws saying what to run. Installs once per process.
 */
export function ensureChromium(): Promise<string> {
  installing ??= installChromium()
  return installing
}

async function installChromium(): Promise<string> {
  if (isExecutable(chromiumPath)) return chromiumPath
  const how = `Install it as root with \`apt-get install -y ${debianPackages.join(' ')}\` (.ci/ensure-site-stack does on CI).`
  if (process.getuid?.() !== 0 || !isExecutable('/usr/bin/apt-get')) {
    throw new Error(`The browser tests need Debian's Chromium at ${chromiumPath}, and it is missing. ${how}`)
  }
  let attempt = await aptGet(['install', '-y', ...debianPackages])
  if (attempt.code !== 0) {
    // A fresh machine has no package lists yet, or stale ones naming versions the mirror no longer has.
    const update = await aptGet(['update'])
    attempt = update.code === 0 ? await aptGet(['install', '-y', ...debianPackages]) : update
  }
  if (attempt.code !== 0) {
    throw new Error(
      `apt-get could not install Debian's Chromium (exit ${attempt.code}). ${how}\n${attempt.output}`,
    )
  }
  if (!isExecutable(chromiumPath)) {
    throw new Error(`apt-get installed ${debianPackages.join(' ')}, yet ${chromiumPath} is still missing.`)
  }
  return chromiumPath
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

async function aptGet(args: string[]): Promise<{ code: number; output: string }> {
  // Waits for a dpkg lock another installer holds instead of failing at once.
  const run = Bun.spawn(['apt-get', '-o', 'DPkg::Lock::Timeout=300', ...args], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(run.stdout).text(),
    new Response(run.stderr).text(),
    run.exited,
  ])
  return { code, output: `${stdout}${stderr}`.split('\n').slice(-20).join('\n') }
}

/** A headless Chromium with {@link chromiumFlags} and a fresh profile; close it in `afterAll`. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: await ensureChromium(), headless: true, args: [...chromiumFlags] })
}

/** One thing that went wrong on a page, as {@link collectPageFailures} recorded it. */
export interface PageFailure {
  readonly kind: 'console-error' | 'page-error' | 'csp-violation' | 'request-failed'
  /** What happened, e.g. `GET http://127.0.0.1:3000/app.js → 404`. */
  readonly text: string
}

/** What {@link collectPageFailures} tolerates. */
export interface PageFailureOptions {
  /**
   * Failures the test expects: one whose text contains a string here, or matches a pattern, is not recorded.
   * Default none.
   * @example { allow: [/POST \S+\/sessions → 401/] }
   */
  readonly allow?: readonly (string | RegExp)[]
}

/** What went wrong on one page so far. */
export interface PageFailures {
  /** The failures recorded so far, oldest first. */
  list(): readonly PageFailure[]
  /** Forgets what was recorded, after a step meant to fail. */
  clear(): void
  /**
   * Lets the page deliver what it has queued, then throws an Error listing every failure, headed by `context`.
   * @example await failures.assertClean('after signing in')
   */
  assertClean(context?: string): Promise<void>
}

const violationBinding = '__plinthCspViolation'

/**
 * Starts recording what goes wrong on `page`: console errors, uncaught page errors, crashes, CSP violations (from
 * the console and from `securitypolicyviolation` events, including ones the page's own code catches, such as a
 * refused `eval`), and same-origin requests that fail or answer 400 or more. Aborted requests (a navigation
 * leaving an EventSource behind) and favicon requests are not failures. A violation Chromium also logs is listed
 * twice: its console text says how to allow it, its event where it happened. Call it once per page, before `goto`.
 */
export async function collectPageFailures(
  page: Page,
  options: PageFailureOptions = {},
): Promise<PageFailures> {
  let failures: PageFailure[] = []
  const allowed = (text: string) =>
    (options.allow ?? []).some((entry) =>
      typeof entry === 'string' ? text.includes(entry) : entry.test(text),
    )
  const record = (kind: PageFailure['kind'], text: string) => {
    if (!allowed(text)) failures.push({ kind, text })
  }
  const sameOrigin = (url: string) => {
    try {
      return new URL(url).origin === new URL(page.url()).origin
    } catch {
      return false
    }
  }

  page.on('console', (message) => {
    const text = message.text()
    if (text.includes('Content Security Policy')) return record('csp-violation', text)
    if (message.type() !== 'error') return
    // Chromium's "Failed to load resource" names no URL; the response listener records the same failure with one.
    if (text.startsWith('Failed to load resource') && sameOrigin(message.location().url)) return
    record('console-error', `${text} (${message.location().url || page.url()})`)
  })
  page.on('pageerror', (error) => record('page-error', error.stack ?? `${error.name}: ${error.message}`))
  page.on('crash', () => record('page-error', `the page crashed at ${page.url()}`))
  page.on('requestfailed', (request) => {
    const reason = request.failure()?.errorText ?? 'failed'
    if (reason === 'net::ERR_ABORTED' || !(sameOrigin(request.url()) || request.isNavigationRequest())) return
    record('request-failed', `${request.method()} ${request.url()}: ${reason}`)
  })
  page.on('response', (response) => {
    const request = response.request()
    if (response.status() < 400 || !(sameOrigin(response.url()) || request.isNavigationRequest())) return
    record('request-failed', `${request.method()} ${response.url()} → ${response.status()}`)
  })
  // Init scripts and bindings go through the DevTools protocol, which the page's CSP does not govern.
  await page.exposeBinding(violationBinding, (_source, violation: string) =>
    record('csp-violation', violation),
  )
  await page.addInitScript((binding) => {
    document.addEventListener(
      'securitypolicyviolation',
      (event) => {
        const report = (window as unknown as Record<string, (violation: string) => void>)[binding]
        report?.(
          `${event.disposition} ${event.effectiveDirective} refused ${event.blockedURI || 'a resource'} ` +
            `at ${event.sourceFile || location.href}:${event.lineNumber}`,
        )
      },
      true,
    )
  }, violationBinding)

  return {
    list: () => [...failures],
    clear: () => {
      failures = []
    },
    async assertClean(context = page.url()) {
      // One round trip after a turn of the page's event loop: what the page queued before now has arrived.
      await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0))).catch(() => {})
      if (failures.length === 0) return
      const lines = failures.map((failure) => `- ${failure.kind}: ${failure.text}`)
      throw new Error(`The page went wrong (${context}):\n${lines.join('\n')}`)
    },
  }
}

let axeSource: Promise<string> | undefined

/**
 * Runs axe-core's WCAG 2.0/2.1 A and AA rules ({@link wcagTags}) on what `page` shows now, in every frame, and
 * throws an Error naming `context` and each violation: rule, impact, help and the selectors of the offending
 * elements. axe is evaluated through the DevTools protocol, so the page keeps its CSP (no `bypassCSP` needed).
 * @example await checkAccessibility(page, 'the sites list, empty')
 */
export async function checkAccessibility(page: Page, context: string): Promise<void> {
  axeSource ??= Bun.file(Bun.resolveSync('axe-core/axe.min.js', import.meta.dir)).text()
  const source = await axeSource
  for (const frame of page.frames()) {
    if (!(await frame.evaluate(() => 'axe' in window))) await frame.evaluate(source)
  }
  const violations = await page.evaluate(async (tags) => {
    const { axe } = window as unknown as { axe: typeof import('axe-core') }
    const results = await axe.run(document, {
      runOnly: { type: 'tag', values: [...tags] },
      resultTypes: ['violations'],
    })
    return results.violations.map((rule) => ({
      id: rule.id,
      impact: rule.impact,
      help: rule.help,
      helpUrl: rule.helpUrl,
      nodes: rule.nodes.map((node) => ({ target: node.target })),
    }))
  }, wcagTags)
  if (violations.length === 0) return
  throw new Error(
    `Accessibility violations (WCAG 2.0/2.1 A and AA) on ${context}:\n${violations.map(describeViolation).join('\n')}`,
  )
}

type Violation = Pick<AxeRule, 'id' | 'impact' | 'help' | 'helpUrl'> & {
  nodes: { target: AxeRule['nodes'][number]['target'] }[]
}

function describeViolation(rule: Violation): string {
  // A target is one selector per frame, outermost first; a selector into shadow DOM is a list of its own.
  const targets = rule.nodes.map(
    (node) =>
      `    ${node.target.map((step) => (Array.isArray(step) ? step.join(' >>> ') : step)).join(' | frame | ')}`,
  )
  return [`- ${rule.id} (${rule.impact ?? 'no impact'}): ${rule.help} ${rule.helpUrl}`, ...targets].join('\n')
}

/** Saves a full-page PNG of `page` at `path`, making its directory; answers `path`. */
export async function screenshotTo(page: Page, path: string): Promise<string> {
  mkdirSync(dirname(path), { recursive: true })
  await page.screenshot({ path, fullPage: true })
  return path
}

/** A page of its own (cookies and storage included) with its failures recorded from the first request. */
export interface OpenedPage {
  readonly page: Page
  readonly failures: PageFailures
  /** Closes the page and its browser context. */
  close(): Promise<void>
}

/**
 * Opens `url` in a fresh browser context, recording failures from the start, and waits for the `load` event.
 * Wait for what the test needs next with a selector, never `networkidle`.
 * @example const { page, failures, close } = await openPage(browser, `${base}/`)
 */
export async function openPage(
  browser: Browser,
  url: string,
  options: PageFailureOptions = {},
): Promise<OpenedPage> {
  const context = await browser.newContext()
  const page = await context.newPage()
  const failures = await collectPageFailures(page, options)
  await page.goto(url)
  return { page, failures, close: () => context.close() }
}
