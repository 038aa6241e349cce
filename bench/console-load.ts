// What the web console costs a browser to load: starts the standalone server as `npm start` runs it (no sites) with
// a staff user made by the CLI, then in Debian's Chromium, each round in a fresh browser context (empty cache):
// - the bytes of the sign-in page's first load, and of the dashboard reached by signing in (everything the wire
//   carried: the sum of the Chrome DevTools protocol's `encodedDataLength`, headers included, gzip as served);
// - time to interactive on the dashboard with a cold cache (still signed in): from `goto` to the usage cards shown
//   and a click on "Sites" answered by its page, and the same again with the cache warm.
// Rounds alternate cold and warm loads; figures are medians over `BENCH_ROUNDS` (7) rounds.
// `node_modules/.bin/bun bench/console-load.ts`. No pass/fail: the figures go into docs/console.md.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, CDPSession, Page } from 'playwright-core'
import { launchConsoleBrowser } from '../plugins/console/testing/browser.ts'
import { percentile, root, startServer } from './standalone.ts'

const rounds = Number(process.env.BENCH_ROUNDS ?? '7')
const staff = { email: 'bench@plinth.test', password: 'bench-password-1234' }

/** The bytes a page's requests carried, and whether any is still in flight. */
class Wire {
  private inFlight = new Set<string>()
  private bytes = 0
  private lastChange = performance.now()

  constructor(cdp: CDPSession) {
    cdp.on('Network.requestWillBeSent', ({ requestId }) => {
      this.inFlight.add(requestId)
      this.lastChange = performance.now()
    })
    cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => {
      this.bytes += encodedDataLength
      this.done(requestId)
    })
    cdp.on('Network.loadingFailed', ({ requestId }) => this.done(requestId))
  }

  private done(requestId: string) {
    this.inFlight.delete(requestId)
    this.lastChange = performance.now()
  }

  /** Waits until nothing has been in flight for 300 ms, then answers the bytes since the last take and resets. */
  async take(): Promise<number> {
    while (this.inFlight.size > 0 || performance.now() - this.lastChange < 300) await Bun.sleep(20)
    const bytes = this.bytes
    this.bytes = 0
    return bytes
  }
}

/** From `goto('/')` to the usage cards shown, and to a click on "Sites" answered by its page (ms). */
async function timeToInteractive(page: Page, url: string): Promise<{ cards: number; interactive: number }> {
  const started = performance.now()
  await page.goto(url, { waitUntil: 'commit' })
  await page.locator('[data-testid="usage-cards"]').waitFor()
  const cards = performance.now() - started
  await page
    .getByRole('navigation', { name: 'Areas' })
    .getByRole('link', { name: 'Sites', exact: true })
    .click()
  await page.getByRole('heading', { level: 1, name: 'Sites', exact: true }).waitFor()
  return { cards, interactive: performance.now() - started }
}

interface Round {
  signInBytes: number
  dashboardBytes: number
  coldBytes: number
  cold: { cards: number; interactive: number }
  warmBytes: number
  warm: { cards: number; interactive: number }
}

async function round(browser: Browser, url: string): Promise<Round> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  try {
    const page = await context.newPage()
    const cdp = await context.newCDPSession(page)
    await cdp.send('Network.enable')
    const wire = new Wire(cdp)
    await page.goto(url)
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor()
    const signInBytes = await wire.take()
    await page.getByLabel('E-mail').fill(staff.email)
    await page.getByLabel('Password').fill(staff.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.locator('[data-testid="usage-cards"]').waitFor()
    const dashboardBytes = await wire.take()
    // Cold: the session stays, the cache goes.
    await cdp.send('Network.clearBrowserCache')
    const cold = await timeToInteractive(page, url)
    const coldBytes = await wire.take()
    const warm = await timeToInteractive(page, url)
    const warmBytes = await wire.take()
    return { signInBytes, dashboardBytes, coldBytes, cold, warmBytes, warm }
  } finally {
    await context.close()
  }
}

const folder = mkdtempSync(join(tmpdir(), 'plinth-console-bench-'))
const env = { DATA_DIR: join(folder, 'data'), PLINTH_SECRET: 'c'.repeat(64) }
const server = await startServer({ ...env, PORT: '0' })
let browser: Browser | undefined
try {
  // The staff user, made with the CLI as an operator does, the password piped in.
  const admin = Bun.spawn(
    [process.execPath, 'hosts/cli/main.ts', 'admin', 'create', '--email', staff.email, '--password-stdin'],
    {
      cwd: root,
      env: { ...process.env, ...env },
      stdin: new Blob([`${staff.password}\n`]),
      stdout: 'ignore',
      stderr: 'inherit',
    },
  )
  if ((await admin.exited) !== 0) throw new Error('admin create failed')
  browser = await launchConsoleBrowser()
  // One round unmeasured: the server builds the app at its first visit, and Chromium warms up.
  await round(browser, `${server.url}/`)
  const results: Round[] = []
  for (let index = 0; index < rounds; index++) results.push(await round(browser, `${server.url}/`))
  const median = (pick: (result: Round) => number) => percentile(results.map(pick), 0.5)
  const kB = (bytes: number) => `${(bytes / 1000).toFixed(1).padStart(7)} kB`
  const ms = (value: number) => `${value.toFixed(0).padStart(5)} ms`
  console.log(`web console load, medians of ${rounds} rounds (a fresh browser context each):`)
  console.log(`  ${'what'.padEnd(38)} ${'transferred'.padStart(11)}   ${'cards'.padStart(8)}   interactive`)
  console.log(`  ${'sign-in page, first load'.padEnd(38)} ${kB(median((r) => r.signInBytes))}`)
  console.log(`  ${'dashboard after signing in'.padEnd(38)} ${kB(median((r) => r.dashboardBytes))}`)
  console.log(
    `  ${'dashboard, cold cache'.padEnd(38)} ${kB(median((r) => r.coldBytes))}   ${ms(median((r) => r.cold.cards))}   ${ms(median((r) => r.cold.interactive))}`,
  )
  console.log(
    `  ${'dashboard, warm cache'.padEnd(38)} ${kB(median((r) => r.warmBytes))}   ${ms(median((r) => r.warm.cards))}   ${ms(median((r) => r.warm.interactive))}`,
  )
} finally {
  await browser?.close()
  server.process.kill('SIGTERM')
  await server.process.exited
  rmSync(folder, { recursive: true, force: true })
}
