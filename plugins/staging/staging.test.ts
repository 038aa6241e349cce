// The staging API's refusals and records that need no node's work, on both stores: a staging copy made (a site of
// its own, linked both ways, audited), a second one 409 `staging_exists`, a staging copy's own 409 `site_is_staging`,
// a push's validation codes, tenancy (404) and scopes (403). Copies and pushes for real are staging.e2e.test.ts's.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { definePlugin } from '../../core/index.ts'
import {
  createTestPanel,
  createTestUser,
  expectProblem,
  type TestPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import { siteTypes } from '../sites/contract.ts'
import type { StagingTables } from './migrations.ts'

/** A site type no restore adapter says how to copy. */
const bareSites = definePlugin({
  name: 'bare-sites',
  version: '0.1.0',
  description: 'A site type without a restore adapter, for the test.',
  requires: ['sites'],
  setup(context) {
    context.extensionPoint(siteTypes).add({ name: 'bare', description: 'A bare site.' })
  },
})

let tp: TestPanel
let token: string
let customerId: string
let live: string
let staging: string
const tag = crypto.randomUUID().slice(0, 6)

async function call(method: string, path: string, body?: unknown, as = token) {
  const response = await tp.request(method, `/api/v1${path}`, { token: as, body })
  return response
}

async function activeSite(name: string): Promise<string> {
  const created = await call('POST', '/sites', {
    customerId,
    name,
    type: 'wordpress',
    domain: `${name}.staging.test`,
  })
  expect(created.status).toBe(201)
  const { id } = (await created.json()) as { id: string }
  await waitFor(`site ${id} to be active`, async () => {
    const site = (await (await call('GET', `/sites/${id}`)).json()) as { status: string }
    if (site.status === 'active') return true
    await Bun.sleep(20)
    return null
  })
  return id
}

/** Waits for a job to end, whatever its outcome (the test panel's node takes no real backups). */
async function ended(jobId: string): Promise<void> {
  await waitFor(
    `job ${jobId}`,
    async () => {
      const job = (await (await call('GET', `/jobs/${jobId}`)).json()) as { status: string }
      if (['succeeded', 'failed', 'cancelled'].includes(job.status)) return true
      await Bun.sleep(20)
      return null
    },
    30_000,
  )
}

beforeAll(async () => {
  tp = await createTestPanel({
    plugins: [bareSites],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
  })
  tp.panel.start()
  token = await tp.token()
  const customer = await call('POST', '/customers', { name: 'Stager' })
  customerId = ((await customer.json()) as { id: string }).id
  live = await activeSite(`live-${tag}`)
})
afterAll(() => tp.panel.close())

describe('a staging copy', () => {
  test('is a new site on staging.<domain> by default, linked both ways, audited: 202 with its job', async () => {
    const made = await call('POST', `/sites/${live}/staging`, {})
    expect(made.status).toBe(202)
    const body = (await made.json()) as {
      jobId: string
      site: { id: string; domain: string; type: string; customerId: string }
      staging: { liveSiteId: string; stagingSiteId: string; status: string; stagingDomain: string }
    }
    staging = body.site.id
    expect(body.site).toMatchObject({
      domain: `staging.live-${tag}.staging.test`,
      type: 'wordpress',
      customerId,
    })
    expect(body.staging).toMatchObject({
      liveSiteId: live,
      stagingSiteId: staging,
      status: 'copying',
      stagingDomain: `staging.live-${tag}.staging.test`,
    })
    expect(body.jobId).toMatch(/^job_/)
    for (const id of [live, staging]) {
      const read = await call('GET', `/sites/${id}/staging`)
      expect(read.status).toBe(200)
      expect(await read.json()).toMatchObject({ liveSiteId: live, stagingSiteId: staging })
    }
    const audit = await tp.panel.store.db
      .selectFrom('audit_entries' as never)
      .selectAll()
      .where('action' as never, '=', 'staging.create' as never)
      .execute()
    expect(audit.length).toBe(1)
    // Cancelled (the copy itself is the e2e's): the copy fails with it, and so does the backup it was taking.
    expect((await call('POST', `/jobs/${body.jobId}/cancel`)).status).toBeLessThan(300)
    await ended(body.jobId)
    const read = (await (await call('GET', `/sites/${live}/staging`)).json()) as {
      status: string
      error: { code: string } | null
    }
    expect(read).toMatchObject({ status: 'failed', error: { code: 'cancelled' } })
    const backups = (await (await call('GET', `/sites/${live}/backups`)).json()) as {
      items: { status: string }[]
    }
    expect(backups.items.map((item) => item.status)).toEqual(['failed'])
  })

  test('a second one is 409 staging_exists naming it; a staging copy’s own is 409 site_is_staging', async () => {
    const again = await expectProblem(
      await call('POST', `/sites/${live}/staging`, { domain: `other-${tag}.test` }),
      409,
      'staging_exists',
    )
    expect((again as unknown as { stagingSiteId: string }).stagingSiteId).toBe(staging)
    const nested = await expectProblem(
      await call('POST', `/sites/${staging}/staging`, {}),
      409,
      'site_is_staging',
    )
    expect((nested as unknown as { liveSiteId: string }).liveSiteId).toBe(live)
  })

  test('a bad domain is 422 invalid_domain at body.domain, and no site is made', async () => {
    const other = await activeSite(`second-${tag}`)
    const refused = await expectProblem(
      await call('POST', `/sites/${other}/staging`, { domain: 'bad domain\n{' }),
      422,
      'invalid_domain',
    )
    expect(refused.errors?.[0]?.location).toBe('body.domain')
    await expectProblem(await call('GET', `/sites/${other}/staging`), 404, 'staging_not_found')
  })

  test('a site of a type no restore adapter copies is 422 staging_unsupported, and no site is made', async () => {
    const created = await call('POST', '/sites', {
      customerId,
      name: `bare-${tag}`,
      type: 'bare',
      domain: `bare-${tag}.staging.test`,
    })
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: string }
    await expectProblem(await call('POST', `/sites/${id}/staging`, {}), 422, 'staging_unsupported')
    const sites = (await (await call('GET', `/sites?customerId=${customerId}`)).json()) as {
      items: { domain: string }[]
    }
    expect(sites.items.some((site) => site.domain.startsWith('staging.bare-'))).toBe(false)
  })

  test('a php or a static site has its staging copy (its type’s restore adapter: a copy of its files)', async () => {
    for (const type of ['php', 'static'] as const) {
      const created = await call('POST', '/sites', {
        customerId,
        name: `${type}-${tag}`,
        type,
        domain: `${type}-${tag}.staging.test`,
        [type]: { root: 'public' },
      })
      expect(created.status).toBe(201)
      const { id } = (await created.json()) as { id: string }
      await waitFor(`site ${id} to be active`, async () => {
        const site = (await (await call('GET', `/sites/${id}`)).json()) as { status: string }
        if (site.status === 'active') return true
        await Bun.sleep(20)
        return null
      })
      const made = await call('POST', `/sites/${id}/staging`, {})
      expect(made.status).toBe(202)
      const body = (await made.json()) as { jobId: string; site: { type: string; domain: string } }
      expect(body.site).toMatchObject({ type, domain: `staging.${type}-${tag}.staging.test` })
      // The copy itself needs a node that takes backups (staging.e2e.test.ts's): cancelled here.
      expect((await call('POST', `/jobs/${body.jobId}/cancel`)).status).toBeLessThan(300)
      await ended(body.jobId)
    }
    const answer = await call('GET', '/capabilities')
    const { installation } = (await answer.json()) as {
      installation: { plugins: { name: string; capabilities: { cloneableSiteTypes?: string[] } }[] }
    }
    const backups = installation.plugins.find((plugin) => plugin.name === 'backups')
    expect(backups?.capabilities.cloneableSiteTypes?.sort()).toEqual(['php', 'static', 'wordpress'])
  })

  test('a site without a staging copy has none to read: 404 staging_not_found', async () => {
    const other = await activeSite(`lonely-${tag}`)
    await expectProblem(await call('GET', `/sites/${other}/staging`), 404, 'staging_not_found')
  })
})

describe('a push', () => {
  test('is refused on the live site (409 not_a_staging_site), for nothing (422 nothing_to_push)', async () => {
    await expectProblem(await call('POST', `/sites/${live}/push`, { files: true }), 409, 'not_a_staging_site')
    await expectProblem(await call('POST', `/sites/${staging}/push`, {}), 422, 'nothing_to_push')
    await expectProblem(
      await call('POST', `/sites/${staging}/push`, { files: false, tables: false }),
      422,
      'nothing_to_push',
    )
  })

  test('bad paths and table names are 422 with their codes at their fields, nothing started', async () => {
    const refused = await expectProblem(
      await call('POST', `/sites/${staging}/push`, {
        files: ['/htdocs/ok', '/logs/access.log', '/htdocs/../etc', 'relative', '/htdocs/a\nb'],
        tables: ['wp_posts', 'wp_posts`; DROP TABLE x', 'x y', 'ü', 'a'.repeat(64)],
      }),
      422,
      'validation_failed',
    )
    await expectProblem(
      await call('POST', `/sites/${staging}/push`, { files: ['/htdocs/../../etc/passwd'] }),
      422,
      'invalid_push_path',
    )
    await expectProblem(
      await call('POST', `/sites/${staging}/push`, { tables: ['wp_posts;'] }),
      422,
      'invalid_table_name',
    )
    const errors = (refused.errors ?? []).map((item) => `${item.location} ${item.code}`)
    expect(errors).toEqual([
      'body.files[1] invalid_push_path',
      'body.files[2] invalid_push_path',
      'body.files[3] invalid_push_path',
      'body.files[4] invalid_push_path',
      'body.tables[1] invalid_table_name',
      'body.tables[2] invalid_table_name',
      'body.tables[3] invalid_table_name',
    ])
    const read = (await (await call('GET', `/sites/${staging}/staging`)).json()) as { lastPush: unknown }
    expect(read.lastPush).toBeNull()
  })

  test('a staging copy not ready is 409 staging_not_ready; a ready one starts the push with its pre-restore backup', async () => {
    const db = tp.panel.store.db.withTables<StagingTables>()
    await db
      .updateTable('staging_sites')
      .set({ status: 'failed' })
      .where('staging_site_id', '=', staging)
      .execute()
    await expectProblem(
      await call('POST', `/sites/${staging}/push`, { files: true }),
      409,
      'staging_not_ready',
    )
    await db
      .updateTable('staging_sites')
      .set({ status: 'ready' })
      .where('staging_site_id', '=', staging)
      .execute()
    const pushed = await call('POST', `/sites/${staging}/push`, {
      files: ['/htdocs/wp-content/themes'],
      tables: ['wp_posts'],
    })
    expect(pushed.status).toBe(202)
    const body = (await pushed.json()) as {
      jobId: string
      preRestoreBackupId: string
      liveSiteId: string
      staging: { lastPush: { jobId: string; status: string; files: unknown; tables: unknown } }
    }
    expect(body.liveSiteId).toBe(live)
    expect(body.preRestoreBackupId).toMatch(/^bkp_/)
    expect(body.staging.lastPush).toMatchObject({
      jobId: body.jobId,
      status: 'running',
      files: ['/htdocs/wp-content/themes'],
      tables: ['wp_posts'],
    })
    // The live site's backups list the one the push takes first.
    const backups = (await (await call('GET', `/sites/${live}/backups`)).json()) as {
      items: { id: string; reason: string }[]
    }
    expect(backups.items.find((item) => item.id === body.preRestoreBackupId)?.reason).toBe('pre-restore')
    // A second push while this one runs: 409 backup_in_progress.
    await expectProblem(
      await call('POST', `/sites/${staging}/push`, { files: true }),
      409,
      'backup_in_progress',
    )
    expect((await call('POST', `/jobs/${body.jobId}/cancel`)).status).toBeLessThan(300)
    await ended(body.jobId)
    const after = (await (await call('GET', `/sites/${staging}/staging`)).json()) as {
      lastPush: { status: string }
    }
    expect(after.lastPush.status).toBe('failed')
  })
})

describe('tenancy and scopes', () => {
  test('another customer’s token gets 404; a billing member 403', async () => {
    const other = await call('POST', '/customers', { name: 'Other' })
    const otherToken = await tp.token({ customerId: ((await other.json()) as { id: string }).id })
    const member = await createTestUser(tp.panel.store.db, {
      email: `billing-${tag}@staging.test`,
      staffRole: null,
    })
    const added = await call('POST', `/customers/${customerId}/members`, {
      email: member.email,
      role: 'billing',
    })
    expect(added.status).toBe(201)
    const billing = await tp.token({ user: member })
    for (const [method, path, body] of [
      ['GET', `/sites/${live}/staging`, undefined],
      ['POST', `/sites/${live}/staging`, {}],
      ['POST', `/sites/${staging}/push`, { files: true }],
    ] as const) {
      await expectProblem(await call(method, path, body, otherToken), 404, 'not_found')
      await expectProblem(await call(method, path, body, billing), 403, 'insufficient_scope')
    }
  })
})

describe('deleting sites', () => {
  test('a deleted staging site unlinks its live site', async () => {
    const deleted = (await (await call('DELETE', `/sites/${staging}`)).json()) as { jobId: string }
    await ended(deleted.jobId)
    await expectProblem(await call('GET', `/sites/${live}/staging`), 404, 'staging_not_found')
  })
})
