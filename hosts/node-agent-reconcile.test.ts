// A node rebuilt from nothing, and a site on it reaching a central database server, with the real panel and node
// agent as separate processes: a WordPress site on the agent's node keeps its database on a MariaDB at this machine's
// network address (not loopback: where another machine would reach it), logs in there with a login granted to the
// node's address, and is served over HTTPS with its certificate. Then the node is rebuilt (agent stopped, its nginx
// and PHP-FPM ended, its sites' Unix users removed, its data directory wiped): the restarted agent's reconciliation
// holds it back (a node holding none of its sites may have its disk unmounted), and staff's brings the site back, WordPress over its surviving database (the administrator’s password still logs in), with its
// certificate, and its SFTP account that logs in with a key (with the node's new host keys); a server block on the node
// the panel does not know is reported and left serving.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import mysql from 'mysql2/promise'
import type { Node } from '../plugins/nodes/contract.ts'
import { sftpClient } from '../plugins/sftp/testing/sftp-client.ts'
import type { Site } from '../plugins/sites/contract.ts'
import { apiClient, cliStaffToken, createProcessTracker, type TestAgent } from './testing/host-process.ts'
import {
  freePort,
  makeHierarchy,
  presentedFingerprint,
  removeNodeLeftovers,
  waitFor,
} from './testing/index.ts'
import { type NetworkMariadb, startNetworkMariadb } from './testing/network-mariadb.ts'

const { tempDataDir, startStandalone, startAgent, runCli, cleanup } = createProcessTracker('plinth-rebuild-')
let database: NetworkMariadb | undefined
afterAll(async () => {
  await cleanup()
  await database?.stop()
})

/** Polls `probe` every 200 ms (the panel's rate limit counts every request) until it answers something. */
const poll = <T>(what: string, probe: () => Promise<T | undefined>, ms: number) =>
  waitFor(
    what,
    async () => {
      const value = await probe()
      if (value === undefined) await Bun.sleep(200)
      return value
    },
    ms,
  )

/** The site's login at wp-login.php: where WordPress sends the browser (to /wp-admin once the password is right). */
async function logIn(agent: TestAgent, domain: string, user: string, password: string) {
  const response = await agent.fromNode(domain, '/wp-login.php', {
    method: 'POST',
    body: new URLSearchParams({ log: user, pwd: password, 'wp-submit': 'Log In', testcookie: '1' }),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: 'wordpress_test_cookie=WP%20Cookie%20check',
    },
  })
  return { status: response.status, location: response.headers.get('location') ?? '' }
}

/** A fresh SFTP client folder (its known_hosts empty: a rebuilt node has new host keys) and a key made in it. */
function sftpUser(port: number) {
  const dir = tempDataDir()
  chmodSync(dir, 0o700)
  const key = join(dir, 'id_deploy')
  const made = Bun.spawnSync(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-C', 'deploy@test', '-f', key])
  expect(made.exitCode).toBe(0)
  return { client: sftpClient(dir, port), key, publicKey: readFileSync(`${key}.pub`, 'utf8').trim() }
}

/** The pids of the node's masters (nginx, each site's PHP-FPM sandbox, its own MariaDB), from their pid files. */
function masterPids(dataDir: string): number[] {
  const sites = existsSync(join(dataDir, 'php/sites')) ? readdirSync(join(dataDir, 'php/sites')) : []
  const files = [
    'nginx/nginx.pid',
    ...sites.map((site) => `php/sites/${site}/master.pid`),
    'services/database/run/mariadb.pid',
  ]
  return files.flatMap((file) => {
    const path = join(dataDir, file)
    return existsSync(path) ? [Number(readFileSync(path, 'utf8').trim())] : []
  })
}

/** Rebuilds the node from nothing: its masters ended, its sites' users removed, its data directory wiped. */
async function rebuild(agent: TestAgent, dataDir: string): Promise<void> {
  await agent.stop()
  const pids = masterPids(dataDir)
  expect(pids.length).toBeGreaterThanOrEqual(2)
  removeNodeLeftovers(dataDir)
  await waitFor('the node’s masters to end', () => pids.every((pid) => !alive(pid)), 20_000)
  rmSync(dataDir, { recursive: true, force: true })
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * What an operator does after rebuilding a node: the agent's connection found it holding none of its sites (as a node
 * whose disk is not mounted would) and put nothing back; having looked, staff ask for the node's reconciliation.
 */
async function confirmRebuilt(call: ReturnType<typeof apiClient>, nodeId: string): Promise<void> {
  await poll(
    'the connection’s round to hold the node’s sites back',
    async () => ((await call<Node>('GET', `/nodes/${nodeId}`)).body.inventory?.held ?? 0) > 0 || undefined,
    120_000,
  )
  expect((await call('POST', `/nodes/${nodeId}/reconcile`)).status).toBe(202)
}

describe('a node rebuilt from nothing, its WordPress site on a central database server', () => {
  let call: ReturnType<typeof apiClient>
  let panel: Awaited<ReturnType<typeof startStandalone>>
  let node: Node & { agentToken: string }
  let agent: TestAgent
  let customerId: string
  const agentDir = tempDataDir()
  // Its SSH server, on the same port across the node's rebuild.
  const sftp = { SFTP_PORT: String(freePort()), SFTP_LISTEN: '127.0.0.1' }

  beforeAll(async () => {
    database = await startNetworkMariadb()
    const dataDir = tempDataDir()
    panel = await startStandalone(dataDir, { JOB_LEASE_MS: '2000', LOCAL_SITES: 'files' })
    call = apiClient(panel, await cliStaffToken(runCli, dataDir))
    const nodes = await call<{ items: Node[] }>('GET', '/nodes')
    const local = nodes.body.items.find((item) => item.name === 'local')
    expect((await call('PATCH', `/nodes/${local?.id}`, { status: 'draining' })).status).toBe(200)
    // The node at the address the database server sees its connections come from.
    const created = await call<Node & { agentToken: string }>('POST', '/nodes', {
      name: 'rebuilt',
      driver: 'agent',
      hostname: database.host,
    })
    expect(created.status).toBe(201)
    node = created.body
    // The central server, registered at the address nodes reach it at; the node runs no MariaDB of its own.
    const server = await call('POST', '/database-servers', {
      name: 'central',
      engine: 'mariadb',
      host: database.host,
      port: database.port,
      username: database.username,
      password: database.password,
    })
    expect(server.status).toBe(201)
    customerId = (await call<{ id: string }>('POST', '/customers', { name: 'Acme' })).body.id
    agent = await startAgent(panel, node.agentToken, { dataDir: agentDir, env: sftp })
  }, 90_000)

  test('the site logs in on the central server, survives the node’s rebuild with its certificate and SFTP key account, and an unknown server block is left alone', async () => {
    const domain = `rebuilt-${crypto.randomUUID().slice(0, 8)}.example.test`
    const created = await call<Site & { wordpress: { adminUser: string; adminPassword: string } }>(
      'POST',
      '/sites',
      { customerId, name: 'Rebuilt Shop', type: 'wordpress', domain },
    )
    expect(created.status).toBe(201)
    const siteId = created.body.id
    const { adminUser, adminPassword } = created.body.wordpress
    await poll(
      'the site to be active',
      async () => {
        const site = await call<Site>('GET', `/sites/${siteId}`)
        expect(site.body.status).not.toBe('failed')
        return site.body.status === 'active' ? true : undefined
      },
      120_000,
    )
    // Its login is granted to the node's address, and WordPress reaches the central server from there.
    const logins = await call<{ items: { allowedHosts: string[]; serverId: string }[] }>(
      'GET',
      `/database-users?customerId=${customerId}`,
    )
    expect(logins.body.items.map((login) => login.allowedHosts)).toEqual([[database?.host ?? '?']])
    expect((await agent.fromNode(domain)).status).toBe(200)
    expect(await logIn(agent, domain, adminUser, adminPassword)).toMatchObject({
      status: 302,
      location: expect.stringContaining('/wp-admin'),
    })

    const hierarchy = await makeHierarchy([domain])
    const certificate = await call<{ id: string; fingerprintSha256: string }>('POST', '/certificates', {
      customerId,
      certificatePem: hierarchy.leaf.pem,
      privateKeyPem: hierarchy.leaf.keyPem,
      chainPem: hierarchy.intermediate.pem + hierarchy.root.pem,
    })
    expect(certificate.status).toBe(201)
    const attached = await call<{ jobId: string }>('PUT', `/sites/${siteId}/certificate`, {
      certificateId: certificate.body.id,
    })
    expect(attached.status).toBe(202)
    await poll(
      'the certificate to be installed',
      async () => {
        const now = await call<{ status: string }>('GET', `/sites/${siteId}/certificate`)
        return now.body.status === 'installed' ? true : undefined
      },
      60_000,
    )
    expect(presentedFingerprint(agent.httpsPort, domain)).toBe(certificate.body.fingerprintSha256)

    // An SFTP account that logs in with a key.
    const before = sftpUser(Number(sftp.SFTP_PORT))
    const account = await call<{ id: string; username: string; hostKeyFingerprints: string[] }>(
      'POST',
      `/sites/${siteId}/sftp-users`,
      { name: 'deploy', publicKeys: [before.publicKey] },
    )
    expect(account.status).toBe(201)
    const listed = await before.client.run(account.body.username, { key: before.key }, ['ls /htdocs'])
    expect(listed.stdout).toContain('wp-config.php')

    // The node is rebuilt: agent stopped, its nginx and PHP-FPM ended, its sites' users gone, its disk empty.
    await rebuild(agent, agentDir)
    // Something on the new node the panel never put there: a server block of the operator's.
    mkdirSync(join(agentDir, 'nginx', 'sites'), { recursive: true })
    writeFileSync(
      join(agentDir, 'nginx', 'sites', 'operator-status.conf'),
      `server {\n    listen ${agent.httpPort};\n    server_name status.example.test;\n    return 200 "left alone\\n";\n}\n`,
    )
    const rebuiltAt = performance.now()
    const again = await startAgent(panel, node.agentToken, {
      dataDir: agentDir,
      httpPort: agent.httpPort,
      env: sftp,
    })

    // Its connection reconciles the node, holding back what it lost altogether; staff confirm: the site is
    // provisioned again, WordPress over its surviving database.
    await confirmRebuilt(call, node.id)
    const restored = await poll(
      'the site to be provisioned again',
      async () => {
        const site = await call<Site>('GET', `/sites/${siteId}`)
        expect(site.body.drift?.code).not.toBe('restore_failed')
        return site.body.drift?.code === 'content_lost' ? site.body : undefined
      },
      180_000,
    )
    expect(restored.status).toBe('active')
    // Its certificate follows it back.
    await poll(
      'the certificate to be presented again',
      async () =>
        presentedFingerprint(again.httpsPort, domain) === certificate.body.fingerprintSha256
          ? true
          : undefined,
      60_000,
    )
    // Served again (once the certificate's reload is done), the administrator the database kept logging in.
    const front = await again.fromNode(domain)
    expect(front.status).toBe(200)
    expect(await front.text()).toContain('<title>Rebuilt Shop')
    // The administrator is the one its database kept: the password shown at creation still logs in.
    expect(await logIn(again, domain, adminUser, adminPassword)).toMatchObject({
      status: 302,
      location: expect.stringContaining('/wp-admin'),
    })
    console.log(
      `a rebuilt node serving its WordPress site again: ${(performance.now() - rebuiltAt).toFixed(0)} ms`,
    )

    // A round asked for now finds the site in place, and puts back its SFTP account (its key, the node's new host
    // keys); the operator's server block is reported on the node, and still serves.
    const round = await call<{ jobId: string }>('POST', `/nodes/${node.id}/reconcile`)
    expect(round.status).toBe(202)
    const result = await poll(
      'the reconciliation to end',
      async () => {
        const job = await call<{ status: string; result: Record<string, number> }>(
          'GET',
          `/jobs/${round.body.jobId}`,
        )
        return job.body.status === 'succeeded' ? job.body.result : undefined
      },
      30_000,
    )
    expect(result).toEqual({ sites: 1, reapplied: 1, unknown: 1 })
    const after = sftpUser(Number(sftp.SFTP_PORT))
    const loggedInAgain = await after.client.run(account.body.username, { key: before.key }, ['ls /htdocs'])
    expect(loggedInAgain.code, loggedInAgain.stderr).toBe(0)
    expect(loggedInAgain.stdout).toContain('wp-config.php')
    const recorded = await call<{ hostKeyFingerprints: string[] }>(
      'GET',
      `/sites/${siteId}/sftp-users/${account.body.id}`,
    )
    expect(recorded.body.hostKeyFingerprints).not.toEqual(account.body.hostKeyFingerprints)
    const reported = (await call<Node>('GET', `/nodes/${node.id}`)).body.inventory
    expect(reported?.sites).toBe(1)
    expect(reported?.unknown).toEqual([{ kind: 'server-block', name: 'operator-status' }])
    const status = await again.fromNode('status.example.test')
    expect(status.status).toBe(200)
    expect(await status.text()).toBe('left alone\n')

    // The node moves (its address changes): its site's login follows it, granted to the new address alone, and
    // back again, where WordPress reaches its database once more.
    const loginHosts = async () =>
      (
        await call<{ items: { allowedHosts: string[] }[] }>('GET', `/database-users?customerId=${customerId}`)
      ).body.items.map((login) => login.allowedHosts)
    const [login] = (
      await call<{ items: { username: string }[] }>('GET', `/database-users?customerId=${customerId}`)
    ).body.items
    const accounts = async () => {
      const admin = await mysql.createConnection({
        host: database?.host,
        port: database?.port,
        user: database?.username,
        password: database?.password,
      })
      try {
        const [rows] = await admin.query('select Host as host from mysql.user where User = ? order by Host', [
          login?.username,
        ])
        return (rows as { host: string }[]).map((row) => row.host)
      } finally {
        await admin.end()
      }
    }
    for (const address of ['web-1.example.test', database?.host ?? '?']) {
      expect((await call('PATCH', `/nodes/${node.id}`, { hostname: address })).status).toBe(200)
      await poll(
        `the login granted to ${address}`,
        async () => (JSON.stringify(await loginHosts()) === JSON.stringify([[address]]) ? true : undefined),
        30_000,
      )
      await poll(
        `the central server to hold the login at ${address} alone`,
        async () => (JSON.stringify(await accounts()) === JSON.stringify([address]) ? true : undefined),
        30_000,
      )
    }
    const served = await again.fromNode(domain)
    expect(served.status).toBe(200)
    expect(await served.text()).toContain('<title>Rebuilt Shop')

    const deleting = await call<Site>('DELETE', `/sites/${siteId}`)
    expect(deleting.status).toBe(202)
  }, 300_000)
})

describe('a node rebuilt from nothing, its WordPress site on the node’s own MariaDB', () => {
  test('the node’s server gets the site’s database back, empty, and WordPress is installed on it again', async () => {
    const dataDir = tempDataDir()
    const panel = await startStandalone(dataDir, { JOB_LEASE_MS: '2000', LOCAL_SITES: 'files' })
    const call = apiClient(panel, await cliStaffToken(runCli, dataDir))
    const nodes = await call<{ items: Node[] }>('GET', '/nodes')
    const local = nodes.body.items.find((item) => item.name === 'local')
    expect((await call('PATCH', `/nodes/${local?.id}`, { status: 'draining' })).status).toBe(200)
    const node = await call<Node & { agentToken: string }>('POST', '/nodes', {
      name: 'own-db',
      driver: 'agent',
      hostname: '127.0.0.1',
    })
    const customerId = (await call<{ id: string }>('POST', '/customers', { name: 'Acme' })).body.id
    const agentDir = tempDataDir()
    const env = { NODE_DATABASE_PORT: String(freePort()) }
    const agent = await startAgent(panel, node.body.agentToken, { dataDir: agentDir, env })
    const domain = `own-${crypto.randomUUID().slice(0, 8)}.example.test`
    const created = await call<Site & { wordpress: { adminUser: string; adminPassword: string } }>(
      'POST',
      '/sites',
      { customerId, name: 'Own Shop', type: 'wordpress', domain },
    )
    expect(created.status).toBe(201)
    const siteId = created.body.id
    await poll(
      'the site to be active',
      async () => ((await call<Site>('GET', `/sites/${siteId}`)).body.status === 'active' ? true : undefined),
      120_000,
    )
    const { adminUser, adminPassword } = created.body.wordpress
    expect((await logIn(agent, domain, adminUser, adminPassword)).status).toBe(302)

    await rebuild(agent, agentDir)
    const again = await startAgent(panel, node.body.agentToken, {
      dataDir: agentDir,
      httpPort: agent.httpPort,
      env,
    })
    await confirmRebuilt(call, node.body.id)
    await poll(
      'the site to be provisioned again',
      async () => {
        const site = await call<Site>('GET', `/sites/${siteId}`)
        expect(site.body.drift?.code).not.toBe('restore_failed')
        return site.body.drift?.code === 'content_lost' ? true : undefined
      },
      180_000,
    )
    const front = await again.fromNode(domain)
    expect(front.status).toBe(200)
    expect(await front.text()).toContain('<title>Own Shop')
    // Its database was lost with the node: WordPress is a new install, whose administrator nobody knows the
    // password of (the panel never kept the one it showed).
    expect((await logIn(again, domain, adminUser, adminPassword)).status).toBe(200)
    const audit = await call<{ items: { action: string }[] }>('GET', '/audit?action=database.recreate')
    expect(audit.body.items).toHaveLength(1)
  }, 300_000)
})
