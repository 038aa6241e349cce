// A WordPress site end to end on a remote node: the real panel and the node agent as separate processes on
// loopback, real nginx, PHP-FPM, Debian's WordPress and MariaDB. Create → served front page with the site's title →
// the admin logs in with the password from the 201 answer → suspend 503, unsuspend 200 → delete leaves nothing.
// HTTPS with an uploaded certificate, presented exactly and removed on detach, its key nowhere but sealed. Then
// SIGKILL of the agent in the middle of provisioning: the job finishes once and the site works.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import mysql from 'mysql2/promise'
import type { Node } from '../plugins/nodes/contract.ts'
import type { Site } from '../plugins/sites/contract.ts'
import { apiClient, cliStaffToken, createProcessTracker, type TestAgent } from './testing/host-process.ts'
import { freePort, makeHierarchy, presentedFingerprint, waitFor } from './testing/index.ts'
import { storeText } from './testing/store-text.ts'

const { tempDataDir, runCli, startStandalone, startAgent, cleanup } = createProcessTracker('plinth-agent-')
// The agents' nginx, PHP-FPM and sites' users go with their folders.
afterAll(cleanup)

type Agent = TestAgent
/** Traffic reported every second (the default is a minute). */
const reportEverySecond = { AGENT_REPORT_SECONDS: '1' }

function findFiles(dir: string, pattern: RegExp): string[] {
  if (!existsSync(dir)) return []
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((path) => pattern.test(path))
    .map((path) => join(dir, path))
}

/** What the node's nginx answers for `domain` at `path`. */
const fromNode = (agent: Agent, domain: string, path = '/', init: RequestInit = {}) =>
  agent.fromNode(domain, path, init)

/** Polls `probe` every 100 ms (the panel's rate limit counts every request) until it answers something. */
function poll<T>(what: string, probe: () => Promise<T | undefined>, ms: number) {
  return waitFor(
    what,
    async () => {
      const value = await probe()
      if (value === undefined) await Bun.sleep(100)
      return value
    },
    ms,
  )
}

interface Job {
  readonly status: string
  readonly attempts: number
  readonly error: unknown
  readonly finishedAt: string | null
}

/**
 * A panel with an agent node (the local node drained), and its staff client. The node runs a MariaDB of its own
 * (`databasePort`), which the panel registers as the node's database server: no server is added by hand.
 */
async function panelWithAgentNode() {
  const dataDir = tempDataDir()
  const panel = await startStandalone(dataDir, { JOB_LEASE_MS: '2000', LOCAL_SITES: 'files' })
  const token = await cliStaffToken(runCli, dataDir)
  const call = apiClient(panel, token)
  const nodes = await call<{ items: Node[] }>('GET', '/nodes')
  const local = nodes.body.items.find((node) => node.name === 'local')
  expect((await call('PATCH', `/nodes/${local?.id}`, { status: 'draining' })).status).toBe(200)
  const node = await call<Node & { agentToken: string }>('POST', '/nodes', {
    name: 'agent-1',
    driver: 'agent',
    hostname: '127.0.0.1',
  })
  expect(node.status).toBe(201)
  const customer = await call<{ id: string }>('POST', '/customers', { name: 'Acme' })
  const agentDir = tempDataDir()
  // Its agents run the node's own MariaDB here (a port of its own, the same across the node's agents).
  const env = { ...reportEverySecond, NODE_DATABASE_PORT: String(freePort()) }
  return { panel, dataDir, token, call, node: node.body, customerId: customer.body.id, agentDir, env }
}

async function jobOf(call: ReturnType<typeof apiClient>, id: string): Promise<Job> {
  return poll(
    `job ${id}`,
    async () => {
      const job = await call<Job>('GET', `/jobs/${id}`)
      return job.body.finishedAt === null ? undefined : job.body
    },
    90_000,
  )
}

/** The site's login at wp-login.php: the cookies WordPress sets, and where it sends the browser. */
async function logIn(agent: Agent, domain: string, user: string, password: string) {
  const form = new URLSearchParams({ log: user, pwd: password, 'wp-submit': 'Log In', testcookie: '1' })
  const response = await fromNode(agent, domain, '/wp-login.php', {
    method: 'POST',
    body: form,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: 'wordpress_test_cookie=WP%20Cookie%20check',
    },
  })
  return {
    status: response.status,
    location: response.headers.get('location') ?? '',
    cookies: response.headers.getSetCookie(),
  }
}

describe('a WordPress site on a node run by the agent', () => {
  let setup: Awaited<ReturnType<typeof panelWithAgentNode>>
  let agent: Agent
  beforeAll(async () => {
    setup = await panelWithAgentNode()
    agent = await startAgent(setup.panel, setup.node.agentToken, {
      dataDir: setup.agentDir,
      env: setup.env,
    })
  }, 60_000)

  test('the node shows its agent connected, its version, that it serves, and what the plugins’ modules offer', async () => {
    const node = await setup.call<Node>('GET', `/nodes/${setup.node.id}`)
    expect(node.body.agent).toMatchObject({ connected: true, version: expect.any(String) })
    expect(node.body.agent.capabilities).toMatchObject({
      mode: 'serving',
      nginx: expect.any(String),
      php: expect.any(String),
      // The modules the panel's plugins declare, loaded by the agent from its own install.
      applications: { wordpress: expect.any(String) },
      services: {
        files: {},
        wordpress: {},
        sftp: expect.objectContaining({ port: expect.anything() }),
        shell: {},
        database: {
          engine: 'mariadb',
          running: true,
          host: '127.0.0.1',
          port: Number(setup.env.NODE_DATABASE_PORT),
        },
      },
      missing: [],
      setup: 'npm run agent -- setup',
    })
    // The panel registered the node's own MariaDB as its database server: nobody added one.
    const servers = await setup.call<{ items: { nodeId: string | null; port: number }[] }>(
      'GET',
      '/database-servers',
    )
    expect(servers.body.items).toEqual([
      expect.objectContaining({ nodeId: setup.node.id, port: Number(setup.env.NODE_DATABASE_PORT) }),
    ])
  })

  test('create → front page → admin login → suspend → unsuspend → delete, leaving nothing behind', async () => {
    const domain = `shop-${crypto.randomUUID().slice(0, 8)}.example.test`
    const started = performance.now()
    const created = await setup.call<Site & { wordpress: { adminUser: string; adminPassword: string } }>(
      'POST',
      '/sites',
      {
        customerId: setup.customerId,
        name: 'Acme Shop',
        type: 'wordpress',
        domain,
        wordpress: { adminEmail: 'owner@example.test' },
      },
    )
    expect(created.status).toBe(201)
    expect(created.body.nodeId).toBe(setup.node.id)
    const { adminUser, adminPassword } = created.body.wordpress
    expect(adminUser).toBe('admin')
    expect(adminPassword).toMatch(/^[A-Za-z0-9]{20}$/)
    const job = await jobOf(setup.call, created.body.jobId ?? '')
    expect(job).toMatchObject({ status: 'succeeded', attempts: 1 })
    const front = await fromNode(agent, domain)
    const html = await front.text()
    const servedMs = performance.now() - started
    expect(front.status).toBe(200)
    expect(html).toContain('<title>Acme Shop')
    console.log(`POST /sites to a served WordPress front page: ${servedMs.toFixed(0)} ms`)

    // The agent reports what the site takes on the node's disk (WordPress's own copy: tens of MB).
    const disk = await poll(
      'the disk use to be reported',
      async () => {
        const usage = await setup.call<{ disk: { usedBytes: number } }>(
          'GET',
          `/usage?customerId=${setup.customerId}`,
        )
        return usage.body.disk.usedBytes > 20_000_000 ? usage.body.disk.usedBytes : undefined
      },
      30_000,
    )
    expect(disk).toBeLessThan(500_000_000)

    const login = await logIn(agent, domain, adminUser, adminPassword)
    expect(login.status).toBe(302)
    expect(login.location).toContain('/wp-admin')
    expect(login.cookies.some((cookie) => cookie.startsWith('wordpress_logged_in_'))).toBe(true)
    expect((await logIn(agent, domain, adminUser, `${adminPassword}x`)).status).toBe(200)

    const suspended = await setup.call<Site>('POST', `/sites/${created.body.id}/suspend`)
    expect(suspended.status).toBe(200)
    expect(await jobOf(setup.call, suspended.body.jobId ?? '')).toMatchObject({ status: 'succeeded' })
    expect((await fromNode(agent, domain)).status).toBe(503)
    const unsuspended = await setup.call<Site>('POST', `/sites/${created.body.id}/unsuspend`)
    expect(await jobOf(setup.call, unsuspended.body.jobId ?? '')).toMatchObject({ status: 'succeeded' })
    expect((await fromNode(agent, domain)).status).toBe(200)

    const databases = await setup.call<{ items: { id: string; name: string }[] }>(
      'GET',
      `/databases?siteId=${created.body.id}`,
    )
    expect(databases.body.items).toHaveLength(1)
    const databaseName = databases.body.items[0]?.name ?? ''
    const deleting = await setup.call<Site>('DELETE', `/sites/${created.body.id}`)
    expect(deleting.status).toBe(202)
    expect(await jobOf(setup.call, deleting.body.jobId ?? '')).toMatchObject({ status: 'succeeded' })
    expect((await fromNode(agent, domain)).status).toBe(404)
    // Nothing of the site is left on the node: files, server block, pool, Unix user.
    expect(existsSync(join(agent.dataDir, 'sites', created.body.id))).toBe(false)
    for (const file of findFiles(agent.dataDir, /\.conf$/))
      expect(readFileSync(file, 'utf8')).not.toContain(created.body.id)
    const passwd = readFileSync('/etc/passwd', 'utf8')
    expect(passwd).not.toContain(join(agent.dataDir, 'sites', created.body.id))
    // Nor its database on the node's own server, once the databases plugin's job has dropped it.
    await poll(
      'the site’s database to be dropped',
      async () => {
        // The node's own server, as its administrator (its password is in a root-only file of the node).
        const credentials = JSON.parse(
          readFileSync(join(agent.dataDir, 'services', 'database', 'admin.json'), 'utf8'),
        ) as { username: string; password: string }
        const admin = await mysql.createConnection({
          host: '127.0.0.1',
          port: Number(setup.env.NODE_DATABASE_PORT),
          user: credentials.username,
          password: credentials.password,
        })
        const [rows] = await admin.query<mysql.RowDataPacket[]>(
          'SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?',
          [databaseName],
        )
        const [users] = await admin.query<mysql.RowDataPacket[]>(
          'SELECT User FROM mysql.user WHERE User = ?',
          [databaseName],
        )
        await admin.end()
        return rows.length === 0 && users.length === 0 ? true : undefined
      },
      30_000,
    )
  }, 120_000)
})

describe('a site’s files on a node run by the agent', () => {
  test('a file written through the API is served by the node, read back whole and by range, and never kept in clear', async () => {
    const setup = await panelWithAgentNode()
    const agent = await startAgent(setup.panel, setup.node.agentToken, {
      dataDir: setup.agentDir,
      env: setup.env,
    })
    const domain = `files-${crypto.randomUUID().slice(0, 8)}.example.test`
    const created = await setup.call<Site>('POST', '/sites', {
      customerId: setup.customerId,
      name: 'Files Shop',
      type: 'wordpress',
      domain,
    })
    expect(await jobOf(setup.call, created.body.jobId ?? '')).toMatchObject({ status: 'succeeded' })
    const content = (path: string) =>
      `${setup.panel.url}/api/v1/sites/${created.body.id}/files/content?path=${encodeURIComponent(path)}`
    const auth = { authorization: `Bearer ${setup.token}` }
    // Two parts' worth (4 MiB each), with a marker that must never reach the panel's store in clear.
    const marker = `plinth-agent-file-${crypto.randomUUID()}`
    const body = Buffer.concat([Buffer.from(marker), Buffer.alloc(5 * 1024 * 1024, 'x'), Buffer.from(marker)])
    const started = performance.now()
    const written = await fetch(content('/htdocs/agent.txt'), { method: 'PUT', headers: auth, body })
    const writeMs = performance.now() - started
    expect(written.status).toBe(201)
    const entry = (await written.json()) as { size: number; etag: string }
    expect(entry.size).toBe(body.length)
    const served = await fromNode(agent, domain, '/agent.txt')
    expect(Buffer.from(await served.arrayBuffer()).equals(body)).toBe(true)
    const back = await fetch(content('/htdocs/agent.txt'), { headers: auth })
    expect(back.headers.get('etag')).toBe(entry.etag)
    expect(Buffer.from(await back.arrayBuffer()).equals(body)).toBe(true)
    const range = await fetch(content('/htdocs/agent.txt'), {
      headers: { ...auth, range: `bytes=0-${marker.length - 1}` },
    })
    expect(range.status).toBe(206)
    expect(await range.text()).toBe(marker)
    const listing = await setup.call<{ items: { name: string }[] }>(
      'GET',
      `/sites/${created.body.id}/files?path=/htdocs`,
    )
    expect(listing.body.items.map((item) => item.name)).toEqual(
      expect.arrayContaining(['agent.txt', 'wp-config.php']),
    )
    // Through the agent, a link out of the site is refused as on the local node.
    const climbing = await setup.call<{ code: string }>(
      'GET',
      `/sites/${created.body.id}/files?path=/htdocs/../..`,
    )
    expect(climbing.body.code).toBe('path_escapes_site')
    console.log(
      `a ${(body.length / 1024 / 1024).toFixed(1)} MiB file written through the agent in ${writeMs.toFixed(0)} ms`,
    )
    // What crossed the queue (the file's bytes, wp-config.php's listing) is sealed, and cleared once read.
    expect(await storeText(setup.dataDir)).not.toContain(marker)
    // The site goes, with its database and Unix user.
    const deleting = await setup.call<Site>('DELETE', `/sites/${created.body.id}`)
    expect(await jobOf(setup.call, deleting.body.jobId ?? '')).toMatchObject({ status: 'succeeded' })
    await poll(
      'the site’s databases to be dropped',
      async () => {
        const left = await setup.call<{ items: unknown[] }>('GET', `/databases?siteId=${created.body.id}`)
        return left.body.items.length === 0 ? true : undefined
      },
      30_000,
    )
    await agent.stop()
  }, 120_000)
})

describe('HTTPS for a WordPress site on a node run by the agent', () => {
  test('an uploaded certificate is presented exactly, the site answers over HTTPS, detaching removes it, and the key is nowhere else', async () => {
    const setup = await panelWithAgentNode()
    const agent = await startAgent(setup.panel, setup.node.agentToken, {
      dataDir: setup.agentDir,
      env: setup.env,
    })
    const answers: unknown[] = []
    const call = async <T>(method: string, path: string, body?: unknown) => {
      const answer = await setup.call<T>(method, path, body)
      answers.push(answer.body)
      return answer
    }
    const domain = `tls-${crypto.randomUUID().slice(0, 8)}.example.test`
    const created = await call<Site>('POST', '/sites', {
      customerId: setup.customerId,
      name: 'Secure Shop',
      type: 'wordpress',
      domain,
    })
    expect(created.status).toBe(201)
    expect(await jobOf(setup.call, created.body.jobId ?? '')).toMatchObject({ status: 'succeeded' })

    // A key, certificate and chain made here for the site's domain.
    const hierarchy = await makeHierarchy([domain])
    const uploaded = await call<{ id: string; fingerprintSha256: string }>('POST', '/certificates', {
      customerId: setup.customerId,
      certificatePem: hierarchy.leaf.pem,
      privateKeyPem: hierarchy.leaf.keyPem,
      // The test CA's root is in no trust store: given, and left out of what is served.
      chainPem: hierarchy.intermediate.pem + hierarchy.root.pem,
    })
    expect(uploaded.status).toBe(201)
    const attachedAt = performance.now()
    const attached = await call<{ status: string; jobId: string }>(
      'PUT',
      `/sites/${created.body.id}/certificate`,
      {
        certificateId: uploaded.body.id,
      },
    )
    expect(attached.status).toBe(202)
    expect(await jobOf(setup.call, attached.body.jobId)).toMatchObject({ status: 'succeeded' })
    expect((await call<{ status: string }>('GET', `/sites/${created.body.id}/certificate`)).body.status).toBe(
      'installed',
    )

    // A TLS client asking for the domain is shown exactly that certificate, and WordPress answers over HTTPS.
    expect(presentedFingerprint(agent.httpsPort, domain)).toBe(uploaded.body.fingerprintSha256)
    console.log(
      `PUT certificate to presented through the agent: ${(performance.now() - attachedAt).toFixed(0)} ms`,
    )
    const page = Bun.spawnSync([
      'curl',
      '-sk',
      '-w',
      '\n%{http_code}',
      '-D',
      '-',
      // The name as a browser behind the provider's port 443 sends it: without the test's port.
      '-H',
      `Host: ${domain}`,
      '--resolve',
      `${domain}:${agent.httpsPort}:127.0.0.1`,
      `https://${domain}:${agent.httpsPort}/`,
    ])
    const [status = ''] = page.stdout.toString().split('\n').slice(-1)
    expect({ status, headers: page.stdout.toString().split('\r\n\r\n')[0] }).toMatchObject({ status: '200' })
    expect(page.stdout.toString()).toContain('<title>Secure Shop')
    // On the node, the key is root's alone.
    const [keyFile = ''] = findFiles(join(agent.dataDir, 'tls'), /\.key$/)
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)

    const detached = await call<{ jobId: string }>('DELETE', `/sites/${created.body.id}/certificate`)
    expect(detached.status).toBe(202)
    expect(await jobOf(setup.call, detached.body.jobId)).toMatchObject({ status: 'succeeded' })
    expect((await call('GET', `/sites/${created.body.id}/certificate`)).status).toBe(404)
    expect(presentedFingerprint(agent.httpsPort, domain)).toBeNull()
    expect(
      readFileSync(join(agent.dataDir, 'nginx', 'sites', `${created.body.id}.conf`), 'utf8'),
    ).not.toContain('ssl_certificate')
    expect(findFiles(join(agent.dataDir, 'tls'), /\.(key|pem)$/)).toEqual([])
    expect((await call('DELETE', `/certificates/${uploaded.body.id}`)).status).toBe(204)

    // The key's body (and one line of it) is in no answer, no log line of the panel or the agent, and not in
    // clear in the panel's store.
    const body = hierarchy.leaf.keyPem.replace(/-----[^-]+-----/g, '').replace(/\s/g, '')
    const line = hierarchy.leaf.keyPem.split('\n')[1] ?? ''
    expect(line.length).toBeGreaterThan(40)
    const places = {
      answers: JSON.stringify(answers),
      'panel output': setup.panel.stdout.text + setup.panel.stderr.text,
      'agent output': agent.stdout.text + agent.stderr.text,
      store: await storeText(setup.dataDir),
    }
    for (const [place, text] of Object.entries(places)) {
      expect({ place, found: text.includes(body) || text.includes(line) }).toEqual({ place, found: false })
    }
    const deleting = await call<Site>('DELETE', `/sites/${created.body.id}`)
    expect(await jobOf(setup.call, deleting.body.jobId ?? '')).toMatchObject({ status: 'succeeded' })
  }, 120_000)
})

describe('an agent killed in the middle of provisioning', () => {
  test('started again, it finishes the job once, and the site works', async () => {
    const setup = await panelWithAgentNode()
    const httpPort = freePort()
    const first = await startAgent(setup.panel, setup.node.agentToken, {
      dataDir: setup.agentDir,
      httpPort,
      env: setup.env,
    })
    const domain = `crash-${crypto.randomUUID().slice(0, 8)}.example.test`
    const created = await setup.call<Site & { wordpress: { adminUser: string; adminPassword: string } }>(
      'POST',
      '/sites',
      {
        customerId: setup.customerId,
        name: 'Crash Test',
        type: 'wordpress',
        domain,
      },
    )
    expect(created.status).toBe(201)
    // The agent has the command: it logged it started, or the job says the node is at work.
    await poll(
      'the provision to reach the node',
      async () => {
        const job = await setup.call<{ progress: number }>('GET', `/jobs/${created.body.jobId}`)
        return job.body.progress >= 10 ? true : undefined
      },
      30_000,
    )
    await Bun.sleep(300)
    first.process.kill('SIGKILL')
    await first.process.exited
    const second = await startAgent(setup.panel, setup.node.agentToken, {
      dataDir: setup.agentDir,
      httpPort,
      env: setup.env,
    })
    const job = await jobOf(setup.call, created.body.jobId ?? '')
    expect(job).toMatchObject({ status: 'succeeded' })
    const front = await fromNode(second, domain)
    expect(front.status).toBe(200)
    expect(await front.text()).toContain('<title>Crash Test')
    const login = await logIn(
      second,
      domain,
      created.body.wordpress.adminUser,
      created.body.wordpress.adminPassword,
    )
    expect(login.status).toBe(302)
    // One site on the node, one database for it.
    const sites = readdirSync(join(second.dataDir, 'sites')).filter((name) => name.startsWith('site_'))
    expect(sites).toEqual([created.body.id])
    const databases = await setup.call<{ items: unknown[] }>('GET', `/databases?siteId=${created.body.id}`)
    expect(databases.body.items).toHaveLength(1)
    // Deleted again, so nothing of the test stays on the machine (its Unix user, its database).
    const deleting = await setup.call<Site>('DELETE', `/sites/${created.body.id}`)
    expect(await jobOf(setup.call, deleting.body.jobId ?? '')).toMatchObject({ status: 'succeeded' })
  }, 180_000)
})
