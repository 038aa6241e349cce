// A route's own credential and rate limits: a principal whose credential names a rate key is charged to its own
// allowance, never to the address it shares with anonymous callers; a credential that fails is charged to the
// address; the credential is checked once per request.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { defineRoute, type RouteCredential } from '../plugin/route.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'
import { createKernelTestPanel, type TestPanel } from '../testing/create-test-panel.ts'
import { expectProblem } from '../testing/problems.ts'
import { fixturePlugin } from '../testing/tenancy-fixture.ts'

/** How many times a beacon credential was checked. */
let checks = 0

/** `Bearer beacon-<name>`: the beacon named; anything else 401. */
async function beaconOf(request: Request): Promise<{ name: string }> {
  checks += 1
  const name = /^Bearer beacon-([a-z]+)$/.exec(request.headers.get('authorization') ?? '')?.[1]
  if (!name) throw new Problem(kernelProblems.unauthenticated, { headers: { 'www-authenticate': 'Bearer' } })
  return { name }
}

const scheme = { type: 'http', scheme: 'bearer', description: 'A test beacon’s token.' }
/** A credential whose principals have their own allowance. */
const ownAllowance: RouteCredential<{ name: string }> = {
  name: 'beaconToken',
  scheme,
  authenticate: beaconOf,
  rateKey: (beacon) => `beacon:${beacon.name}`,
}
/** The same credential without a rate key: its calls count against the address. */
const addressAllowance: RouteCredential<{ name: string }> = {
  name: 'plainBeaconToken',
  scheme,
  authenticate: beaconOf,
}

const beaconsPlugin = fixturePlugin({
  name: 'beacons',
  description: 'Routes with a credential of their own, with and without a rate key.',
  routes: () => [
    defineRoute({
      method: 'POST',
      path: '/beacons',
      operationId: 'beacon',
      summary: 'A beacon calls in',
      public: true,
      credential: ownAllowance,
      audited: false,
      responses: { 200: { description: 'Who called in.' } },
      handler: ({ principal }) => ({ name: principal.name }),
    }),
    defineRoute({
      method: 'POST',
      path: '/plain-beacons',
      operationId: 'plainBeacon',
      summary: 'A beacon calls in, charged to its address',
      public: true,
      credential: addressAllowance,
      audited: false,
      responses: { 200: { description: 'Who called in.' } },
      handler: ({ principal }) => ({ name: principal.name }),
    }),
  ],
})

let tp: TestPanel
beforeAll(async () => {
  tp = await createKernelTestPanel({ plugins: [beaconsPlugin], rateLimits: { perMinute: 3 } })
})
afterAll(() => tp.panel.close())

const send = (path: string, address: string, authorization?: string) =>
  tp.panel.handle(
    new Request(`http://localhost/api/v1${path}`, {
      method: 'POST',
      headers: authorization ? { authorization } : {},
    }),
    { address },
  )
/** Spends an address's whole allowance with anonymous calls: the next anonymous one is refused. */
async function exhaust(address: string): Promise<void> {
  for (let i = 0; i < 3; i++) await expectProblem(await send('/beacons', address), 401, 'unauthenticated')
  await expectProblem(await send('/beacons', address), 429, 'rate_limited')
}

describe('a route credential with a rate key', () => {
  test('its principal keeps its own allowance while its address is spent, checked once per request', async () => {
    const address = '198.51.100.31'
    await exhaust(address)
    checks = 0
    const answers = []
    for (let i = 0; i < 3; i++) answers.push(await send('/beacons', address, 'Bearer beacon-alpha'))
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200])
    expect(await answers[0]?.json()).toEqual({ name: 'alpha' })
    // The headers are the beacon's allowance, not the address's.
    expect(answers[0]?.headers.get('ratelimit')).toMatch(/^"default";r=2;/)
    expect(answers[2]?.headers.get('ratelimit')).toMatch(/^"default";r=0;/)
    expect(checks).toBe(3)
    // Its own allowance is limited too; another beacon at the same address has its own.
    await expectProblem(await send('/beacons', address, 'Bearer beacon-alpha'), 429, 'rate_limited')
    expect((await send('/beacons', address, 'Bearer beacon-beta')).status).toBe(200)
    // The address is still spent for anonymous callers.
    await expectProblem(await send('/beacons', address), 429, 'rate_limited')
  })

  test('a credential that fails is charged to the address, and refused at once once the address is spent', async () => {
    const address = '198.51.100.32'
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) statuses.push((await send('/beacons', address, `Bearer junk${i}`)).status)
    expect(statuses).toEqual([401, 401, 401, 429])
    // The good credential from there still passes.
    expect((await send('/beacons', address, 'Bearer beacon-gamma')).status).toBe(200)
  })

  test('without a rate key, a credential’s calls count against the address', async () => {
    const address = '198.51.100.33'
    for (let i = 0; i < 3; i++)
      expect((await send('/plain-beacons', address, 'Bearer beacon-delta')).status).toBe(200)
    await expectProblem(await send('/plain-beacons', address, 'Bearer beacon-delta'), 429, 'rate_limited')
    await expectProblem(await send('/beacons', address), 429, 'rate_limited')
  })
})
