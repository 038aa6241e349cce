// After a restore into a WordPress site whose files cover wp-config.php (the backups plugin's `backup.restored`), its
// node is told to set `DISABLE_WP_CRON` again as the site's cron jobs say now: set with a `wp-cron` job, removed
// without one (a restored wp-config.php has the line as the backup had it). A restore of other paths, or into a site
// of another type, tells the node nothing. On both stores, with a node driver that records the calls it is sent;
// the event is written as the backups plugin writes it (its restores need a node that takes backups).

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { definePlugin, newId } from '../../core/index.ts'
import { createTestPanel, type TestPanel, waitFor } from '../../hosts/testing/index.ts'
import { type NodeDriver, nodeDrivers } from '../nodes/contract.ts'
import { siteTypes } from '../sites/contract.ts'
import { cronPlugin } from './index.ts'
import { cronTables } from './repository.ts'
import { coversWpConfig } from './restore-wp-cron.ts'

/** Service calls the recording node was sent: `{ siteId, service, request }`. */
const calls: { siteId: string; service: string; request: Record<string, unknown> }[] = []
const recordingDriver: NodeDriver = {
  name: 'recording',
  description: 'A node whose sites are there at once, and which records the service calls it is sent.',
  send: async (_node, command) => {
    if (command.operation === 'call') {
      calls.push(command.payload as (typeof calls)[number])
      return {} as never
    }
    return undefined as never
  },
}
const recordingNodes = definePlugin({
  name: 'recording-nodes',
  version: '1.0.0',
  description: 'The recording node driver.',
  requires: ['nodes', 'sites'],
  setup(context) {
    context.extensionPoint(nodeDrivers).add(recordingDriver)
    context.extensionPoint(siteTypes).add({ name: 'plain-restore', description: 'Plain files.' })
  },
})

let tp: TestPanel
let token: string
let customerId: string
const tag = crypto.randomUUID().slice(0, 6)

const call = (method: string, path: string, body?: unknown) =>
  tp.request(method, `/api/v1${path}`, { token, ...(body === undefined ? {} : { body }) })
async function json<T>(response: Response, status = 200): Promise<T> {
  const text = await response.text()
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`)
  return JSON.parse(text) as T
}
/**
 * An active site on the recording node; `wordpress`: then known to the panel as a WordPress site (the recording node
 * installs no WordPress: the site is made as a plain one, its type changed in the store).
 */
async function activeSite(name: string, wordpress = true): Promise<string> {
  const { id } = await json<{ id: string }>(
    await call('POST', '/sites', {
      customerId,
      name,
      type: 'plain-restore',
      domain: `${name}.restore.test`,
    }),
    201,
  )
  await waitFor(`site ${id}`, async () => {
    const site = await json<{ status: string }>(await call('GET', `/sites/${id}`))
    if (site.status !== 'active') await Bun.sleep(20)
    return site.status === 'active' || null
  })
  if (wordpress)
    await tp.panel.store.db
      .withTables<{ sites: { id: string; type: string } }>()
      .updateTable('sites')
      .set({ type: 'wordpress' })
      .where('id', '=', id)
      .execute()
  return id
}
/** Puts `backup.restored` in the event outbox as the backups plugin's restore does (the dispatcher delivers it). */
const outboxRow = (customerId: string, data: Record<string, unknown>) =>
  tp.panel.store.db
    .withTables<{ event_outbox: Record<string, string | null> }>()
    .insertInto('event_outbox')
    .values({
      id: newId('evt'),
      kind: 'backup.restored',
      occurred_at: new Date().toISOString(),
      customer_id: customerId,
      payload: JSON.stringify(data),
      dispatched_at: null,
      brand_id: null,
    })
    .execute()
/** `backup.restored` for a restore of `files` into `siteId`, as the backups plugin emits it. */
const restoredInto = (siteId: string, files: boolean | string[]) =>
  outboxRow(customerId, {
    id: newId('bkp'),
    siteId,
    customerId,
    restore: { jobId: newId('job'), siteId, files, databases: [], preRestoreBackupId: null },
  })
const syncsOf = (siteId: string) =>
  calls.filter((made) => made.siteId === siteId && made.request.op === 'wp-cron.set')
async function synced(siteId: string, count: number) {
  return waitFor(`${count} WP-Cron call(s) for ${siteId}`, async () => {
    const made = syncsOf(siteId)
    if (made.length < count) await Bun.sleep(20)
    return made.length >= count ? made : null
  })
}

beforeAll(async () => {
  tp = await createTestPanel({
    plugins: [cronPlugin({ tickIntervalMs: 0 }), recordingNodes],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  token = await tp.token()
  // Sites go on the recording node.
  const nodes = await json<{ items: { id: string; driver: string }[] }>(await call('GET', '/nodes'))
  const local = nodes.items.find((node) => node.driver === 'local')
  await json(await call('PATCH', `/nodes/${local?.id}`, { status: 'draining' }))
  await json(
    await call('POST', '/nodes', { name: `rec-${tag}`, driver: 'recording', hostname: 'rec.example.net' }),
    201,
  )
  customerId = (await json<{ id: string }>(await call('POST', '/customers', { name: 'Restorer' }), 201)).id
})
afterAll(() => tp?.panel.close())

describe('a restore into a WordPress site', () => {
  test('sets DISABLE_WP_CRON again as its jobs say: on with a wp-cron job, off without', async () => {
    const withJob = await activeSite(`with-${tag}`)
    const without = await activeSite(`without-${tag}`)
    const at = new Date().toISOString()
    await cronTables(tp.panel.store.db)
      .insertInto('cron_jobs')
      .values({
        id: newId('cron'),
        siteId: withJob,
        customerId,
        kind: 'wp-cron',
        schedule: '*/5 * * * *',
        command: 'php -f wp-cron.php',
        enabled: 1,
        timeoutSeconds: 300,
        nextRunAt: null,
        lastRunAt: null,
        lastStatus: null,
        createdAt: at,
        updatedAt: at,
      })
      .execute()
    await restoredInto(withJob, true)
    await restoredInto(without, ['/htdocs'])
    expect((await synced(withJob, 1)).map((made) => made.request)).toEqual([
      { op: 'wp-cron.set', disabled: true },
    ])
    expect((await synced(without, 1)).map((made) => made.request)).toEqual([
      { op: 'wp-cron.set', disabled: false },
    ])
  })

  test('a restore of other paths, or into a site of another type, tells the node nothing', async () => {
    const uploads = await activeSite(`uploads-${tag}`)
    const plain = await activeSite(`plain-${tag}`, false)
    await restoredInto(uploads, ['/htdocs/wp-content/uploads'])
    await restoredInto(plain, true)
    // A later restore that does call: once it is seen, the two before it were delivered too.
    await restoredInto(uploads, false)
    await restoredInto(uploads, ['/htdocs/wp-config.php'])
    expect(await synced(uploads, 1)).toHaveLength(1)
    expect(syncsOf(plain)).toEqual([])
  })

  test('which restored paths cover wp-config.php', () => {
    for (const files of [
      true,
      ['/'],
      ['/htdocs'],
      ['/htdocs/'],
      ['/htdocs/wp-config.php'],
      ['/logs', '/htdocs'],
    ])
      expect(coversWpConfig(files)).toBe(true)
    for (const files of [false, ['/htdocs/wp-content'], ['/htdocs/wp-config.php.bak'], ['/htdoc'], [], null])
      expect(coversWpConfig(files)).toBe(false)
  })
})
