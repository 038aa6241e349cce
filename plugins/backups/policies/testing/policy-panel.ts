// What the policies' tests share: a panel with the backups plugin on a fake clock and a local node, customers,
// plans, sites and targets made through the API, and backup rows written as the take job would leave them at chosen
// times (its own tests cover how those come to be).

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { definePlugin, newId, type PluginContext } from '../../../../core/index.ts'
import { createTestPanel, type TestPanel, waitFor } from '../../../../hosts/testing/index.ts'
import { billingPlugin } from '../../../billing/index.ts'
import { nodesPlugin } from '../../../nodes/index.ts'
import type { Site } from '../../../sites/contract.ts'
import { sitesPlugin } from '../../../sites/index.ts'
import { backupsPlugin } from '../../index.ts'
import type { BackupsTable, BackupTables } from '../../migrations.ts'
import type { PolicyOptions } from '../policy-options.ts'

/** A panel for the policies' tests, its clock, and the API calls they make. */
export interface PolicyTestPanel {
  readonly tp: TestPanel
  readonly staff: string
  /** The plugin context of a test plugin that requires backups (to start jobs). */
  readonly context: PluginContext
  /** Sets the policies' clock. */
  setClock(at: Date): void
  call(method: string, path: string, body?: unknown, token?: string): Promise<Response>
  json<T>(response: Response, status?: number): Promise<T>
  newCustomer(): Promise<string>
  /** A plan with `limits` and extra members (`backups`), to which `customerId` subscribes. */
  subscribe(
    customerId: string,
    limits: Record<string, number>,
    extra?: Record<string, unknown>,
  ): Promise<void>
  /** An active site of the customer on the local node. */
  newSite(customerId: string): Promise<Site>
  /** A new `local` target (`POST /backup-targets`), made the default when said. */
  newTarget(isDefault?: boolean): Promise<string>
  /** A backup row of `site` as the take job leaves it. */
  backupRow(site: Site, targetId: string, row: Partial<BackupsTable>): Promise<BackupsTable>
  close(): Promise<void>
}

/** Starts a panel with the backups plugin (its schedule's recurring look off: the tests start it). */
export async function policyTestPanel(policies: PolicyOptions = {}): Promise<PolicyTestPanel> {
  const folder = mkdtempSync(join(tmpdir(), 'plinth-backup-policies-'))
  let clock = new Date()
  let held: PluginContext | undefined
  const holder = definePlugin({
    name: 'policies-test',
    version: '1.0.0',
    description: 'Lends the test a plugin context.',
    requires: ['backups'],
    setup(given) {
      held = given
    },
  })
  const tp = await createTestPanel({
    standard: false,
    plugins: [
      nodesPlugin({ dataDir: join(folder, 'node') }),
      sitesPlugin(),
      billingPlugin(),
      backupsPlugin({ policies: { scheduleIntervalMs: 0, ...policies, now: () => clock } }),
      holder,
    ],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  const staff = await tp.token()
  const context = held
  if (!context) throw new Error('the test plugin was not set up')
  const call = (method: string, path: string, body?: unknown, token = staff) =>
    tp.request(method, `/api/v1${path}`, { token, ...(body === undefined ? {} : { body }) })
  async function json<T>(response: Response, status = 200): Promise<T> {
    if (response.status !== status)
      throw new Error(`expected ${status}, got ${response.status}: ${await response.text()}`)
    return (await response.json()) as T
  }
  const backups = () => context.db.withTables<BackupTables>()

  return {
    tp,
    staff,
    context,
    setClock(at) {
      clock = at
    },
    call,
    json,
    async newCustomer() {
      return (await json<{ id: string }>(await call('POST', '/customers', { name: 'Acme' }), 201)).id
    },
    async subscribe(customerId, limits, extra = {}) {
      const name = `Plan ${crypto.randomUUID().slice(0, 8)}`
      const plan = await json<{ id: string }>(await call('POST', '/plans', { name, limits, ...extra }), 201)
      await json(await call('POST', '/subscriptions', { customerId, planId: plan.id }), 201)
    },
    async newSite(customerId) {
      const domain = `policy-${crypto.randomUUID().slice(0, 8)}.example.com`
      const site = await json<Site>(
        await call('POST', '/sites', { customerId, name: domain, type: 'wordpress', domain }),
        201,
      )
      return waitFor(`site ${domain} active`, async () => {
        const read = await json<Site>(await call('GET', `/sites/${site.id}`))
        if (read.status !== 'active') await Bun.sleep(20)
        return read.status === 'active' ? read : null
      })
    },
    async newTarget(isDefault = false) {
      const name = `target ${crypto.randomUUID().slice(0, 8)}`
      const body = { name, kind: 'local', default: isDefault }
      return (await json<{ id: string }>(await call('POST', '/backup-targets', body), 201)).id
    },
    async backupRow(site, targetId, given) {
      const createdAt = given.created_at ?? new Date().toISOString()
      const row: BackupsTable = {
        id: newId('bkp'),
        site_id: site.id,
        customer_id: site.customerId,
        target_id: targetId,
        node_id: site.nodeId,
        status: 'completed',
        reason: 'scheduled',
        verified: 1,
        size_bytes: 1000,
        stored_bytes: 500,
        contents_json: null,
        checks_json: null,
        snapshot_id: null,
        job_id: null,
        error_code: null,
        error_message: null,
        restore_job_id: null,
        created_at: createdAt,
        finished_at: given.status === 'running' ? null : createdAt,
        forgotten_at: null,
        ...given,
      }
      await backups().insertInto('backups').values(row).execute()
      return row
    },
    async close() {
      await tp.panel.close()
      rmSync(folder, { recursive: true, force: true })
    },
  }
}
