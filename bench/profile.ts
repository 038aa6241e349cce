// In-process cost per request (no HTTP): seeds a small store and times panel.handle() for the hot operations.
// `bun bench/profile.ts`; the figures guide where to look, the HTTP bench is what counts.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPanel, openSqliteStore } from '../core/index.ts'
import { standardPlugins } from '../hosts/standard-panel.ts'
import { seed } from './seed.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'plinth-profile-'))
try {
  const seeded = await seed(dataDir, { customers: 1_000, sites: 10_000, bigCustomerSites: 2_000 })
  const panel = await createPanel({
    store: openSqliteStore({ path: join(dataDir, 'plinth.sqlite') }),
    plugins: standardPlugins({ dataDir, webhookAllowedHosts: [] }),
    secret: seeded.secret,
    rateLimits: { perMinute: 1_000_000_000 },
  })
  const cases: [string, string, string][] = [
    ['/healthz', '/healthz', ''],
    ['GET /api/v1/sites (limited)', '/api/v1/sites', seeded.limitedToken],
    ['GET /api/v1/me (limited)', '/api/v1/me', seeded.limitedToken],
    ['GET /api/v1/usage (staff)', '/api/v1/usage', seeded.staffToken],
  ]
  const only = process.env.PROFILE_ONLY
  for (const [name, path, token] of cases.filter(([name]) => !only || name.includes(only))) {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {}
    const once = async () => {
      const response = await panel.handle(new Request(`http://localhost${path}`, { headers }), {
        address: '127.0.0.1',
      })
      if (response.status !== 200) throw new Error(`${name}: ${response.status} ${await response.text()}`)
      await response.arrayBuffer()
    }
    for (let i = 0; i < 2_000; i++) await once()
    const runs = Number(process.env.PROFILE_RUNS ?? 20_000)
    const started = performance.now()
    for (let i = 0; i < runs; i++) await once()
    console.log(`${name.padEnd(32)} ${(((performance.now() - started) / runs) * 1000).toFixed(1)} µs`)
  }
  await panel.close()
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}
