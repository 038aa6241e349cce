// In-process cost per request (no HTTP): seeds a small store and times panel.handle() for the hot operations, and the
// ceiling's handler beside the list. `bun bench/profile.ts`; the figures guide where to look, the HTTP bench is what
// counts. Rounds alternate and the best round is reported, since the machine's other work adds noise, never removes it.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPanel, openSqliteStore } from '../core/host.ts'
import { ceilingHandler } from './ceiling.ts'
import { benchInstallation } from './installation.ts'
import { seed } from './seed.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'plinth-profile-'))
try {
  const seeded = await seed(dataDir, { customers: 1_000, sites: 10_000, bigCustomerSites: 2_000 })
  const panel = await createPanel({
    store: openSqliteStore({ path: join(dataDir, 'plinth.sqlite') }),
    ...(await benchInstallation(dataDir)),
    secret: seeded.secret,
    rateLimits: { perMinute: 1_000_000_000 },
  })
  const ceiling = ceilingHandler({ dataDir, secret: seeded.secret })
  const limited = { authorization: `Bearer ${seeded.limitedToken}` }
  const staff = { authorization: `Bearer ${seeded.staffToken}` }
  // A cursor deep in the big customer's sites, as a client walking the list would hold.
  let cursor = ''
  for (let i = 0; i < 15; i++) {
    const page = (await (
      await panel.handle(
        new Request(`http://localhost/api/v1/sites?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
          headers: limited,
        }),
      )
    ).json()) as { nextCursor: string }
    cursor = encodeURIComponent(page.nextCursor)
  }
  const panelCase = (path: string, headers: Record<string, string>) => () =>
    panel.handle(new Request(`http://localhost${path}`, { headers }), { address: '127.0.0.1' })
  const ceilingCase = (path: string) => () =>
    ceiling(new Request(`http://localhost${path}`, { headers: limited }))
  const cases: [string, () => Response | Promise<Response>][] = [
    ['/healthz', panelCase('/healthz', {})],
    ['GET /api/v1/sites (limited)', panelCase('/api/v1/sites', limited)],
    ['  ceiling, same query and JSON', ceilingCase('/')],
    ['GET /api/v1/sites deep (limited)', panelCase(`/api/v1/sites?cursor=${cursor}`, limited)],
    ['  ceiling, same query and JSON', ceilingCase(`/?cursor=${cursor}`)],
    ['GET /api/v1/me (limited)', panelCase('/api/v1/me', limited)],
    ['GET /api/v1/usage (staff)', panelCase('/api/v1/usage', staff)],
  ]
  const only = process.env.PROFILE_ONLY
  const chosen = cases.filter(([name]) => !only || name.includes(only))
  const runs = Number(process.env.PROFILE_RUNS ?? 5_000)
  const round = async (name: string, answer: () => Response | Promise<Response>, count: number) => {
    const started = performance.now()
    for (let i = 0; i < count; i++) {
      const response = await answer()
      if (response.status !== 200) throw new Error(`${name}: ${response.status} ${await response.text()}`)
      await response.arrayBuffer()
    }
    return ((performance.now() - started) / count) * 1000
  }
  for (const [name, answer] of chosen) await round(name, answer, 2_000)
  const best = new Map<string, number>()
  for (let r = 0; r < Number(process.env.PROFILE_ROUNDS ?? 6); r++) {
    for (const [index, [name, answer]] of chosen.entries()) {
      const micros = await round(name, answer, runs)
      best.set(`${index}`, Math.min(best.get(`${index}`) ?? Number.POSITIVE_INFINITY, micros))
    }
  }
  for (const [index, [name]] of chosen.entries())
    console.log(`${name.padEnd(34)} ${(best.get(`${index}`) ?? 0).toFixed(1).padStart(7)} µs`)
  await panel.close()
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}
