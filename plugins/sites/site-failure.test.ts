// Every way a site's provisioning can fail, as a client sees it: the site says why (`error`) while its job tries again
// and once it failed for good, a failed site takes changes and is provisioned again by a retry, and a site deleted
// while it provisions (or waits to try again) is gone within seconds. The test plays a remote node's agent over the
// agent protocol (the kit's played agent), answering its commands as a node would (or never, or with a
// refusal); the WordPress case uses the machine's MariaDB as a staff server.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import mysql from 'mysql2/promise'
import {
  createTestPanel,
  expectProblem,
  filesOnlyNode,
  nodeWithPlayedAgent,
  waitFor,
  wordpressNode,
} from '../../hosts/testing/index.ts'
import type { DatabaseServer } from '../databases/contract.ts'
import type { Site } from './contract.ts'

/** A panel whose sites go to a remote node whose agent is this test. */
async function panelWithAgent(options: { retryBaseMs: number; start: boolean }) {
  const tp = await createTestPanel({
    jobs: { pollIntervalMs: 10, retryBaseMs: options.retryBaseMs, retryMaxMs: options.retryBaseMs * 2 },
  })
  if (options.start) tp.panel.start()
  const token = await tp.token()
  const call = (method: string, path: string, body?: unknown) =>
    tp.request(method, `/api/v1${path}`, { token, ...(body === undefined ? {} : { body }) })
  const { agent, nodeId } = await nodeWithPlayedAgent(tp, token)
  const customerId = ((await (await call('POST', '/customers', { name: 'Acme' })).json()) as { id: string })
    .id
  return { tp, call, customerId, agent, nodeId }
}

type Harness = Awaited<ReturnType<typeof panelWithAgent>>

async function readSite(h: Harness, id: string): Promise<Site | null> {
  const response = await h.call('GET', `/sites/${id}`)
  return response.status === 404 ? null : ((await response.json()) as Site)
}

async function siteWhen(h: Harness, id: string, ready: (site: Site) => boolean, timeoutMs = 10_000) {
  return waitFor(
    `site ${id} to change`,
    async () => {
      const site = await readSite(h, id)
      if (site && ready(site)) return site
      await Bun.sleep(20)
      return null
    },
    timeoutMs,
  )
}

/** Waits until the site reads 404. */
async function gone(h: Harness, id: string, timeoutMs = 5_000) {
  await waitFor(
    `site ${id} to be gone`,
    async () => {
      if ((await readSite(h, id)) === null) return true
      await Bun.sleep(20)
      return false
    },
    timeoutMs,
  )
}

async function newSite(h: Harness, type = 'wordpress'): Promise<Site> {
  const response = await h.call('POST', '/sites', {
    customerId: h.customerId,
    name: 'Shop',
    type,
    domain: `shop-${crypto.randomUUID().slice(0, 8)}.example.com`,
  })
  expect(response.status).toBe(201)
  return (await response.json()) as Site
}

async function jobOf(h: Harness, id: string) {
  return (await (await h.call('GET', `/jobs/${id}`)).json()) as {
    status: string
    attempts: number
    error: { code: string } | null
  }
}

const refusal = { code: 'nginx_config_refused', message: 'nginx: [emerg] unknown directive', final: true }

describe('a site whose provisioning fails', () => {
  let h: Harness
  beforeAll(async () => {
    h = await panelWithAgent({ retryBaseMs: 100, start: true })
  })
  afterAll(() => h.tp.panel.close())

  test('is failed at once when the node refuses it for good, saying why with the node’s code and the job', async () => {
    const site = await newSite(h)
    expect(site.error).toBeNull()
    await h.agent.answer(await h.agent.command(site.id, 'provision'), refusal)
    const failed = await siteWhen(h, site.id, (read) => read.status === 'failed')
    expect(failed.error).toEqual({
      code: 'nginx_config_refused',
      message: expect.any(String),
      jobId: site.jobId,
    })
    expect(failed.error?.message).toContain('unknown directive')
    // One attempt: a refusal is not tried four more times over minutes.
    expect(await jobOf(h, site.jobId ?? '')).toMatchObject({ status: 'failed', attempts: 1 })
    const audit = (await (await h.call('GET', `/audit?subject=${site.id}`)).json()) as {
      items: { action: string; details: Record<string, unknown> }[]
    }
    expect(audit.items.find((entry) => entry.action === 'site.fail')?.details).toMatchObject({
      to: 'failed',
      code: 'nginx_config_refused',
    })
  })

  test('says why an attempt failed while its job tries again, and forgets it once provisioned', async () => {
    const site = await newSite(h)
    await h.agent.answer(await h.agent.command(site.id, 'provision', 1), {
      code: 'disk_full',
      message: 'No space left on device',
    })
    const retrying = await siteWhen(h, site.id, (read) => read.error !== null)
    expect(retrying.status).toBe('provisioning')
    expect(retrying.error).toEqual({ code: 'disk_full', message: expect.any(String), jobId: site.jobId })
    await h.agent.answer(await h.agent.command(site.id, 'provision', 2))
    const active = await siteWhen(h, site.id, (read) => read.status === 'active')
    expect(active.error).toBeNull()
  })

  test('takes changes while failed, and a retry provisions it again as it now is', async () => {
    const site = await newSite(h)
    await h.agent.answer(await h.agent.command(site.id, 'provision'), refusal)
    await siteWhen(h, site.id, (read) => read.status === 'failed')
    const domain = `fixed-${crypto.randomUUID().slice(0, 8)}.example.com`
    const patched = await h.call('PATCH', `/sites/${site.id}`, { domain, limits: { diskMB: 500 } })
    expect(patched.status).toBe(200)
    const changed = (await patched.json()) as Site
    // Kept for the retry: nothing is sent to a node the site is not on yet.
    expect(changed).toMatchObject({ status: 'failed', domain, limits: { diskMB: 500 }, jobId: site.jobId })

    const retried = await h.call('POST', `/sites/${site.id}/retry`)
    expect(retried.status).toBe(202)
    const provisioning = (await retried.json()) as Site
    expect(provisioning).toMatchObject({ status: 'provisioning', error: null, domain })
    expect(provisioning.jobId).not.toBe(site.jobId)
    const command = await h.agent.command(site.id, 'provision')
    expect(command.jobId).toBe(provisioning.jobId ?? '')
    expect(command.payload).toMatchObject({ domain, diskMB: 500 })
    await h.agent.answer(command)
    await siteWhen(h, site.id, (read) => read.status === 'active')

    const again = await expectProblem(
      await h.call('POST', `/sites/${site.id}/retry`),
      409,
      'illegal_site_transition',
    )
    expect(again).toMatchObject({ currentStatus: 'active', requestedStatus: 'provisioning' })
    const audit = (await (await h.call('GET', `/audit?subject=${site.id}&action=site.retry`)).json()) as {
      items: { details: Record<string, unknown> }[]
    }
    expect(audit.items[0]?.details).toMatchObject({ from: 'failed', to: 'provisioning' })
  })

  test('is not retried while its node lacks what its type needs, saying what and how to install it', async () => {
    const site = await newSite(h)
    await h.agent.answer(await h.agent.command(site.id, 'provision'), refusal)
    await siteWhen(h, site.id, (read) => read.status === 'failed')
    await h.agent.poll({
      ...filesOnlyNode,
      nginx: '1.22.1',
      php: '8.2.26',
      mode: 'serving',
      missing: [{ what: 'WordPress (Debian’s wordpress package)', for: 'wordpress sites' }],
    })
    try {
      const lacking = await expectProblem(
        await h.call('POST', `/sites/${site.id}/retry`),
        409,
        'site_node_lacks',
      )
      const detail = (lacking as { detail?: string }).detail
      expect(detail).toContain('WordPress')
      expect(detail).toContain('npm run agent -- setup')
      expect((await readSite(h, site.id))?.status).toBe('failed')
    } finally {
      await h.agent.poll(filesOnlyNode)
    }
  })

  test('deleted while the node works on it: the provisioning is cancelled and the site gone within seconds', async () => {
    const site = await newSite(h)
    // Taken and never answered: the node is busy with it.
    await h.agent.command(site.id, 'provision')
    const asked = performance.now()
    const deleting = await h.call('DELETE', `/sites/${site.id}`)
    expect(deleting.status).toBe(202)
    const deletion = (await deleting.json()) as Site
    expect(deletion.status).toBe('deleting')
    expect(deletion.jobId).not.toBe(site.jobId)
    // Asked again (a client that lost the answer): the same deletion.
    const again = await h.call('DELETE', `/sites/${site.id}`)
    expect(again.status).toBe(202)
    expect(((await again.json()) as Site).jobId).toBe(deletion.jobId)
    await h.agent.answer(await h.agent.command(site.id, 'delete'))
    await gone(h, site.id)
    expect(performance.now() - asked).toBeLessThan(5_000)
    expect(await jobOf(h, site.jobId ?? '')).toMatchObject({ status: 'cancelled' })
  })

  test('whose provisioning job is cancelled is failed, with the code `cancelled`, and can be retried', async () => {
    const site = await newSite(h)
    await h.agent.command(site.id, 'provision')
    expect((await h.call('POST', `/jobs/${site.jobId}/cancel`)).status).toBe(202)
    const failed = await siteWhen(h, site.id, (read) => read.status === 'failed')
    expect(failed.error).toMatchObject({ code: 'cancelled', jobId: site.jobId })
    expect((await h.call('POST', `/sites/${site.id}/retry`)).status).toBe(202)
    await h.agent.answer(await h.agent.command(site.id, 'provision', 1))
    await siteWhen(h, site.id, (read) => read.status === 'active')
  })
})

describe('a site between attempts, and a WordPress site with no database server', () => {
  let h: Harness
  let serverId: string
  beforeAll(async () => {
    // Attempts a minute apart, as in production (the default is 5 s, doubling): the retries a deletion must not wait out.
    h = await panelWithAgent({ retryBaseMs: 60_000, start: false })
  })
  afterAll(() => h.tp.panel.close())

  test('a WordPress site whose database has nowhere to go is failed at once with no_database_server', async () => {
    await h.agent.poll(wordpressNode)
    const server = await h.call('POST', '/database-servers', {
      name: 'shared-mariadb',
      engine: 'mariadb',
      // The machine's MariaDB (.ci/run starts it).
      host: '127.0.0.1',
      port: 3306,
      username: 'root',
      password: '',
    })
    expect(server.status).toBe(201)
    serverId = ((await server.json()) as DatabaseServer).id
    // Accepted while the server takes databases; disabled before its provisioning runs.
    const site = await newSite(h)
    expect((await h.call('PATCH', `/database-servers/${serverId}`, { status: 'disabled' })).status).toBe(200)
    h.tp.panel.start()
    const failed = await siteWhen(h, site.id, (read) => read.status === 'failed')
    expect(failed.error).toMatchObject({ code: 'no_database_server', jobId: site.jobId })
    expect(failed.error?.message).toContain('database server')
    expect(await jobOf(h, site.jobId ?? '')).toMatchObject({ status: 'failed', attempts: 1 })

    // The server back: a retry makes the database on it and installs WordPress with it.
    expect((await h.call('PATCH', `/database-servers/${serverId}`, { status: 'active' })).status).toBe(200)
    expect((await h.call('POST', `/sites/${site.id}/retry`)).status).toBe(202)
    const command = await h.agent.command(site.id, 'provision')
    expect(command.payload).toMatchObject({ app: { kind: 'wordpress' } })
    await h.agent.answer(command)
    await siteWhen(h, site.id, (read) => read.status === 'active')
    const databases = (await (await h.call('GET', `/databases?siteId=${site.id}`)).json()) as {
      items: { serverId: string; status: string }[]
    }
    expect(databases.items).toEqual([expect.objectContaining({ serverId, status: 'active' })])

    // Deleted: from the node, and its database from the server.
    expect((await h.call('DELETE', `/sites/${site.id}`)).status).toBe(202)
    await h.agent.answer(await h.agent.command(site.id, 'delete'))
    await gone(h, site.id, 15_000)
    // Its database is dropped by a job of its own.
    await waitFor('the site’s database to be dropped', async () => {
      const left = (await (await h.call('GET', `/databases?siteId=${site.id}`)).json()) as {
        items: unknown[]
      }
      return left.items.length === 0
    })
    await h.agent.poll(filesOnlyNode)
  }, 30_000)

  test('deleted while its provisioning waits a minute to try again: the site is gone within seconds', async () => {
    const site = await newSite(h)
    await h.agent.answer(await h.agent.command(site.id, 'provision'), {
      code: 'disk_full',
      message: 'No space left on device',
    })
    await siteWhen(h, site.id, (read) => read.error?.code === 'disk_full')
    const asked = performance.now()
    expect((await h.call('DELETE', `/sites/${site.id}`)).status).toBe(202)
    // The provisioning waiting for its next attempt ends at once.
    expect(await jobOf(h, site.jobId ?? '')).toMatchObject({ status: 'cancelled' })
    await h.agent.answer(await h.agent.command(site.id, 'delete'))
    await gone(h, site.id)
    expect(performance.now() - asked).toBeLessThan(5_000)
  })
})

describe('a WordPress site whose database could not be made', () => {
  let h: Harness
  const login = `plinth_repair_${crypto.randomUUID().slice(0, 8)}`
  // The machine's MariaDB as its administrator (.ci/run starts it).
  const admin = mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', password: '' })
  beforeAll(async () => {
    // Attempts 0.4 s apart: the site sees its database’s first refusal before the database’s job gives up.
    h = await panelWithAgent({ retryBaseMs: 400, start: true })
    await h.agent.poll(wordpressNode)
    // A staff server reached through a login of its own, which the test locks and unlocks: the server "down".
    await (await admin).query(`CREATE USER '${login}'@'127.0.0.1' IDENTIFIED BY 'repair-secret-1'`)
    await (await admin).query(`GRANT ALL PRIVILEGES ON *.* TO '${login}'@'127.0.0.1' WITH GRANT OPTION`)
  })
  afterAll(async () => {
    await h.tp.panel.close()
    await (await admin).query(`DROP USER IF EXISTS '${login}'@'127.0.0.1'`)
    await (await admin).end()
  })

  test('says why while its server refuses, fails, and a retry once the server is back repairs the database and its login', async () => {
    const server = await h.call('POST', '/database-servers', {
      name: 'repair-mariadb',
      engine: 'mariadb',
      host: '127.0.0.1',
      port: 3306,
      username: login,
      password: 'repair-secret-1',
    })
    expect(server.status).toBe(201)
    const serverId = ((await server.json()) as DatabaseServer).id
    await (await admin).query(`ALTER USER '${login}'@'127.0.0.1' ACCOUNT LOCK`)

    const site = await newSite(h)
    // While it tries again, the site says what its server answered.
    const waiting = await siteWhen(h, site.id, (read) => read.error !== null, 20_000)
    expect(waiting.error).toMatchObject({ code: 'database_not_ready', jobId: site.jobId })
    expect(waiting.error?.message).toContain('account is locked')
    const failed = await siteWhen(h, site.id, (read) => read.status === 'failed', 20_000)
    expect(['database_not_ready', 'database_failed']).toContain(failed.error?.code ?? '')

    // The server back: the retry makes the database and the login whose making had given up.
    await (await admin).query(`ALTER USER '${login}'@'127.0.0.1' ACCOUNT UNLOCK`)
    expect((await h.call('POST', `/sites/${site.id}/retry`)).status).toBe(202)
    const command = await h.agent.command(site.id, 'provision')
    expect(command.payload).toMatchObject({ app: { kind: 'wordpress' } })
    await h.agent.answer(command)
    await siteWhen(h, site.id, (read) => read.status === 'active')
    const databases = (await (await h.call('GET', `/databases?siteId=${site.id}`)).json()) as {
      items: { name: string; serverId: string; status: string }[]
    }
    expect(databases.items).toEqual([expect.objectContaining({ serverId, status: 'active' })])
    const [rows] = await (await admin).query('SHOW DATABASES LIKE ?', [databases.items[0]?.name])
    expect(rows).toHaveLength(1)
  }, 40_000)
})
