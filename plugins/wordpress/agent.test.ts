// WordPress operations on a remote node: the real panel and the node agent as separate processes on loopback, a
// WordPress site served by the agent's nginx and PHP-FPM. The operations reach the node's `wordpress` service
// through the agent's queue (the password a reset generates travels sealed), and work as they do in process.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chownSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import mysql from 'mysql2/promise'
import {
  apiClient,
  cliStaffToken,
  createProcessTracker,
  type TestAgent,
  waitFor,
} from '../../hosts/testing/index.ts'
import { makeZip } from './testing/zip.ts'

const { tempDataDir, runCli, startStandalone, startAgent, cleanup } = createProcessTracker('plinth-wp-agent-')
let call: ReturnType<typeof apiClient>
let agent: TestAgent
let siteId = ''
let databaseName = ''
const domain = `agent-${crypto.randomUUID().slice(0, 8)}.example.test`

async function finished(jobId: string, ms = 120_000) {
  return waitFor(
    `job ${jobId}`,
    async () => {
      const job = (await call<{ status: string; finishedAt: string | null }>('GET', `/jobs/${jobId}`)).body
      if (job.finishedAt) return job
      await Bun.sleep(150)
      return null
    },
    ms,
  )
}

const fromNode = (path = '/', init: RequestInit = {}) => agent.fromNode(domain, path, init)

beforeAll(async () => {
  const dataDir = tempDataDir()
  const panel = await startStandalone(dataDir, { LOCAL_SITES: 'files' })
  call = apiClient(panel, await cliStaffToken(runCli, dataDir))
  const nodes = await call<{ items: { id: string; name: string }[] }>('GET', '/nodes')
  const local = nodes.body.items.find((node) => node.name === 'local')
  expect((await call('PATCH', `/nodes/${local?.id}`, { status: 'draining' })).status).toBe(200)
  expect(
    (
      await call('POST', '/database-servers', {
        name: 'mariadb-1',
        engine: 'mariadb',
        host: '127.0.0.1',
        port: 3306,
        username: 'root',
        password: '',
      })
    ).status,
  ).toBe(201)
  const node = await call<{ agentToken: string }>('POST', '/nodes', {
    name: 'agent-1',
    driver: 'agent',
    hostname: '127.0.0.1',
  })
  agent = await startAgent(panel, node.body.agentToken)
  const customer = await call<{ id: string }>('POST', '/customers', { name: 'Acme' })
  const site = await call<{ id: string; jobId: string }>('POST', '/sites', {
    customerId: customer.body.id,
    name: 'Agent Blog',
    type: 'wordpress',
    domain,
  })
  siteId = site.body.id
  expect(await finished(site.body.jobId)).toMatchObject({ status: 'succeeded' })
  const databases = await call<{ items: { name: string }[] }>('GET', `/databases?siteId=${siteId}`)
  databaseName = databases.body.items[0]?.name ?? ''
}, 180_000)

afterAll(async () => {
  if (siteId) {
    const deleted = await call<{ jobId: string }>('DELETE', `/sites/${siteId}`).catch(() => null)
    if (deleted?.body?.jobId) await finished(deleted.body.jobId, 60_000).catch(() => {})
    await waitFor(
      'the site’s database to be dropped',
      async () => {
        const left = await call<{ items: unknown[] }>('GET', `/databases?siteId=${siteId}`)
        if (left.body.items.length === 0) return true
        await Bun.sleep(200)
        return null
      },
      30_000,
    ).catch(() => {})
  }
  await agent?.stop()
  if (databaseName) {
    const root = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', password: '' })
    await root.query(`DROP DATABASE IF EXISTS \`${databaseName}\``).catch(() => {})
    await root
      .query('DROP USER IF EXISTS ?@?, ?@?, ?@?', [
        databaseName,
        '%',
        databaseName,
        'localhost',
        databaseName,
        '127.0.0.1',
      ])
      .catch(() => {})
    await root.end()
  }
  // The agent's nginx, PHP-FPM and sites' users go with its folder.
  await cleanup()
}, 180_000)

describe('WordPress operations on a node run by the agent', () => {
  test('core, a plugin installed from an uploaded zip and activated, maintenance seen by visitors, a reset password that logs in', async () => {
    const started = performance.now()
    const core = await call<{ version: string; maintenance: boolean }>('GET', `/sites/${siteId}/wordpress`)
    console.log(`GET /sites/{id}/wordpress through the agent: ${(performance.now() - started).toFixed(0)} ms`)
    expect(core.status).toBe(200)
    expect(core.body).toMatchObject({ version: expect.stringMatching(/^\d+\.\d+/), maintenance: false })

    const home = join(agent.dataDir, 'sites', siteId)
    writeFileSync(
      join(home, 'tmp/agent-hello.zip'),
      makeZip([{ name: 'agent-hello/agent-hello.php', content: '<?php\n/* Plugin Name: Agent Hello */\n' }]),
    )
    const owner = statSync(join(home, 'htdocs'))
    chownSync(join(home, 'tmp/agent-hello.zip'), owner.uid, owner.gid)
    const installed = await call('POST', `/sites/${siteId}/wordpress/plugins`, {
      path: '/tmp/agent-hello.zip',
    })
    expect(installed).toMatchObject({ status: 201, body: { slug: 'agent-hello', status: 'inactive' } })
    const activated = await call('POST', `/sites/${siteId}/wordpress/plugins/agent-hello/activate`)
    expect(activated).toMatchObject({ status: 200, body: { status: 'active' } })
    const unsafe = makeZip([{ name: '../escape.php', content: '<?php' }])
    writeFileSync(join(home, 'tmp/unsafe.zip'), unsafe)
    const refused = await call<{ code: string }>('POST', `/sites/${siteId}/wordpress/plugins`, {
      path: '/tmp/unsafe.zip',
    })
    expect(refused).toMatchObject({ status: 422, body: { code: 'unsafe_package_entry' } })

    expect((await call('PUT', `/sites/${siteId}/wordpress/maintenance`, { enabled: true })).status).toBe(200)
    expect((await fromNode()).status).toBe(503)
    expect((await call('PUT', `/sites/${siteId}/wordpress/maintenance`, { enabled: false })).status).toBe(200)
    expect((await fromNode()).status).toBe(200)

    const reset = await call<{ login: string; password: string }>(
      'POST',
      `/sites/${siteId}/wordpress/users/1/password`,
    )
    expect(reset.status).toBe(200)
    const login = await fromNode('/wp-login.php', {
      method: 'POST',
      headers: {
        cookie: 'wordpress_test_cookie=WP%20Cookie%20check',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ log: reset.body.login, pwd: reset.body.password, testcookie: '1' }),
    })
    expect(login.headers.getSetCookie().some((cookie) => cookie.startsWith('wordpress_logged_in_'))).toBe(
      true,
    )
  }, 120_000)
})
