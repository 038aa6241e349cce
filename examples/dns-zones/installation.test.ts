// The plugin on the standard installation through PLINTH_CONFIG alone: `npm start` serves its operations, and the
// CLI knows its scopes, while an installation without the setting knows neither.

import { afterAll, expect, test } from 'bun:test'
import { apiClient, createProcessTracker, tokenPattern } from '../../hosts/testing/index.ts'

const { tempDataDir, runCli, startStandalone, cleanup } = createProcessTracker('plinth-dns-')
afterAll(cleanup)

const config = { PLINTH_CONFIG: 'examples/dns-zones/plinth.config.ts' }

// A server and four CLI runs, each loading the panel: more than the suite's 20 s on a busy machine.
test('PLINTH_CONFIG mounts the plugin for the server and the CLI alike', async () => {
  const dataDir = tempDataDir()
  const server = await startStandalone(dataDir, config)
  const document = (await (await fetch(`${server.url}/api/docs`)).json()) as {
    paths: Record<string, unknown>
  }
  expect(Object.keys(document.paths)).toContain('/api/v1/dns-zones/{id}/zone-file')

  const admin = ['admin', 'create', '--email', 'ops@example.com', '--password', 'correct horse battery']
  expect((await runCli(dataDir, admin, config)).exitCode).toBe(0)
  const mint = [
    'token',
    'create',
    '--email',
    'ops@example.com',
    '--scopes',
    'dns:read,dns:manage,customer:create',
  ]
  const minted = await runCli(dataDir, mint, config)
  expect(minted.exitCode).toBe(0)
  const token = minted.stdout.trimEnd().split('\n').at(-1) ?? ''
  expect(token).toMatch(tokenPattern)

  // The zone file of the real server: its default name servers, its serial.
  const call = apiClient(server, token)
  const customer = await call<{ id: string }>('POST', '/customers', { name: 'Acme' })
  const zone = await call<{ id: string; serial: number }>('POST', '/dns-zones', {
    customerId: customer.body.id,
    name: 'acme.example',
  })
  expect(zone.status).toBe(201)
  const file = await fetch(`${server.url}/api/v1/dns-zones/${zone.body.id}/zone-file`, {
    headers: { authorization: `Bearer ${token}` },
  })
  expect(file.headers.get('content-type')).toBe('text/plain; charset=utf-8')
  expect(await file.text()).toContain(
    `@ IN SOA ns1.example.net. hostmaster.example.net. ${zone.body.serial} `,
  )

  // Without the setting, the same installation's CLI does not know the plugin's scopes.
  const refused = await runCli(dataDir, [
    'token',
    'create',
    '--email',
    'ops@example.com',
    '--scopes',
    'dns:read',
  ])
  expect(refused.exitCode).toBe(1)
  expect(refused.stderr).toContain('unknown_scope')
}, 60_000)

test('a PLINTH_CONFIG that is missing or exports no plugin list stops the start-up with one line, exit 2', async () => {
  const create = ['token', 'create', '--email', 'x@example.com', '--scopes', '*']
  const missing = await runCli(tempDataDir(), create, { PLINTH_CONFIG: 'examples/dns-zones/nowhere.ts' })
  expect(missing.exitCode).toBe(2)
  expect(missing.stderr).toMatch(/^plinth: PLINTH_CONFIG: no file at .*nowhere\.ts\n$/)
  const wrong = await runCli(tempDataDir(), create, { PLINTH_CONFIG: 'examples/dns-zones/records.ts' })
  expect(wrong.exitCode).toBe(2)
  expect(wrong.stderr).toContain('must export by default a plugin list')
})
