// The plugin on the standard installation through PLINTH_CONFIG alone: `npm start` serves it, and the CLI knows its
// scopes, while an installation without the setting knows neither.

import { afterAll, expect, test } from 'bun:test'
import { apiClient, createProcessTracker, tokenPattern } from '../../hosts/testing/index.ts'

const { tempDataDir, runCli, startStandalone, cleanup } = createProcessTracker('plinth-cron-')
afterAll(cleanup)

const config = { PLINTH_CONFIG: 'examples/cron-jobs/plinth.config.ts' }

test('PLINTH_CONFIG mounts the plugin for the server and the CLI alike', async () => {
  const dataDir = tempDataDir()
  const server = await startStandalone(dataDir, config)
  const document = (await (await fetch(`${server.url}/api/docs`)).json()) as {
    paths: Record<string, unknown>
  }
  expect(Object.keys(document.paths)).toContain('/api/v1/sites/{id}/cron-jobs')

  const admin = ['admin', 'create', '--email', 'ops@example.com', '--password', 'correct horse battery']
  expect((await runCli(dataDir, admin, config)).exitCode).toBe(0)
  const minted = await runCli(
    dataDir,
    ['token', 'create', '--email', 'ops@example.com', '--scopes', 'cron:read'],
    config,
  )
  expect(minted.exitCode).toBe(0)
  const token = minted.stdout.trimEnd().split('\n').at(-1) ?? ''
  expect(token).toMatch(tokenPattern)

  const call = apiClient(server, token)
  const capabilities = await call<{
    caller: { scopes: string[] }
    installation: { plugins: { name: string }[] }
  }>('GET', '/capabilities')
  expect(capabilities.body.caller.scopes).toEqual(['cron:read'])
  expect(capabilities.body.installation.plugins.map((plugin) => plugin.name)).toContain('cron-jobs')

  // Without the setting, the same installation's CLI does not know the plugin's scopes.
  const refused = await runCli(dataDir, [
    'token',
    'create',
    '--email',
    'ops@example.com',
    '--scopes',
    'cron:read',
  ])
  expect(refused.exitCode).toBe(1)
  expect(refused.stderr).toContain('unknown_scope')
})

test('a PLINTH_CONFIG that is missing or exports no plugin list stops the start-up with one line, exit 2', async () => {
  const missing = await runCli(
    tempDataDir(),
    ['token', 'create', '--email', 'x@example.com', '--scopes', '*'],
    {
      PLINTH_CONFIG: 'examples/cron-jobs/nowhere.ts',
    },
  )
  expect(missing.exitCode).toBe(2)
  expect(missing.stderr).toMatch(/^plinth: PLINTH_CONFIG: no file at .*nowhere\.ts\n$/)
  const wrong = await runCli(
    tempDataDir(),
    ['token', 'create', '--email', 'x@example.com', '--scopes', '*'],
    {
      PLINTH_CONFIG: 'examples/cron-jobs/schedule.ts',
    },
  )
  expect(wrong.exitCode).toBe(2)
  expect(wrong.stderr).toContain('must export by default a plugin list')
})
