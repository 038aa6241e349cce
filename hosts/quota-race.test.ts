// Two standalone servers on one DATA_DIR (two processes, one SQLite file) take concurrent HTTP requests for a
// customer's last site: exactly one is created, because the quota check runs inside the creating transaction.

import { afterAll, expect, test } from 'bun:test'
import { createProcessTracker } from './testing/host-process.ts'

const { tempDataDir, runCli, startStandalone, cleanup } = createProcessTracker('plinth-race-')
afterAll(cleanup)

test('of 12 creates racing across two server processes for a plan’s last two sites, two are created', async () => {
  const dataDir = tempDataDir()
  // The CLI refuses a DATA_DIR without an installation: make it first, as the servers would.
  expect((await runCli(dataDir, ['init'])).exitCode).toBe(0)
  expect(
    (
      await runCli(dataDir, [
        'admin',
        'create',
        '--email',
        'race@example.com',
        '--password',
        'correct horse battery',
      ])
    ).exitCode,
  ).toBe(0)
  const minted = await runCli(dataDir, ['token', 'create', '--email', 'race@example.com', '--scopes', '*'])
  const token = minted.stdout.trimEnd().split('\n').at(-1) ?? ''
  const servers = [await startStandalone(dataDir), await startStandalone(dataDir)]
  const call = async (server: number, path: string, body: unknown) => {
    const response = await fetch(`${servers[server]?.url}/api/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    return { status: response.status, body: (await response.json()) as { id?: string; code?: string } }
  }
  const customer = await call(0, '/customers', { name: 'Racer' })
  const plan = await call(1, '/plans', { name: 'Two sites', limits: { sites: 2 } })
  expect(
    (await call(0, '/subscriptions', { customerId: customer.body.id, planId: plan.body.id })).status,
  ).toBe(201)
  const results = await Promise.all(
    Array.from({ length: 12 }, (_, n) =>
      call(n % 2, '/sites', {
        customerId: customer.body.id,
        name: `Race ${n}`,
        type: 'wordpress',
        domain: `race-${n}.example.com`,
      }),
    ),
  )
  expect(results.map((result) => result.status).sort()).toEqual([201, 201, ...Array(10).fill(422)])
  expect(results.filter((result) => result.status === 422).map((result) => result.body.code)).toEqual(
    Array(10).fill('site_limit_reached'),
  )
}, 30_000)
