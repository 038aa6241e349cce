// A resource a customer owns, declared with the kernel's removal: refused for a customer whose deletion started,
// deleted with its children by `remove: {}`, and removed with its customer row by row as its DELETE removes it
// (audit entry, event, usage given back), once: run again, it finds nothing. Its parent touched after every change
// of a child (`afterChange`), but not after a change that changed nothing. Its tables made by `tablesMigration`.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Type as t } from '@sinclair/typebox'
import { writeAudit } from '../audit/audit-log.ts'
import type { AuditTables } from '../audit/audit-tables.ts'
import type { OutboxTables } from '../events/outbox-tables.ts'
import { newId, nowIso } from '../ids/ids.ts'
import type { JobRun } from '../jobs/job-definition.ts'
import { defineProblems } from '../problem/problem-code.ts'
import { tablesMigration } from '../store/schema-table.ts'
import type { Db } from '../store/store.ts'
import { visibleTable } from '../tenancy/visible-table.ts'
import { createKernelTestPanel, type TestPanel } from '../testing/create-test-panel.ts'
import { expectProblem } from '../testing/problems.ts'
import { customerA, customerB, fixturePlugin, twoTenants } from '../testing/tenancy-fixture.ts'
import { unchanged } from './change.ts'
import type { PluginContext } from './define-plugin.ts'
import { itemRows } from './item-rows.ts'
import { resourceItem } from './resource-item.ts'
import { resourceEvents, resourceRoutes } from './resource-routes.ts'

const Bin = resourceItem('StorageBin', 'bin', {
  customerId: t.String(),
  label: t.String(),
  touched: t.Integer(),
})
const Tag = resourceItem('StorageTag', 'tag', { binId: t.String(), customerId: t.String(), text: t.String() })
type Bin = typeof Bin.static
type Tag = typeof Tag.static
const tables = (db: Db) => db.withTables<{ bins: Bin; tags: Tag }>()
/** Bins written by the plugin as the kernel stamps items; tags by hand. */
const bins = itemRows('bins', Bin, { customerColumn: 'customerId' })
const tags = visibleTable(tables, 'tags', { customerColumn: 'customerId' })
const problems = defineProblems({
  bin_limit_reached: { status: 422, detail: 'No more bins.', description: 'Past the `bins` limit.' },
})
const binMetric = {
  name: 'bins',
  description: 'Bins.',
  quota: { description: 'Bins.', problem: problems.bin_limit_reached },
}
const scopes = { read: 'gadget:read', manage: 'gadget:create' }

let context: PluginContext | undefined
const fixture = fixturePlugin({
  name: 'storage',
  description: 'Bins with tags, removed with their customer.',
  scopes: ['gadget:read', 'gadget:create'],
  tenants: twoTenants,
  events: [
    ...resourceEvents('bin', Bin, 'A bin', ['created', 'deleted']),
    ...resourceEvents('tag', Tag, 'A tag'),
  ],
  problems,
  usage: [binMetric],
  migrations: [
    tablesMigration('0001_storage', {
      bins: { item: Bin, unique: [['customerId', 'label']] },
      tags: { item: Tag, indexes: [['binId']] },
    }),
  ],
  routes: () => [
    ...resourceRoutes({
      item: Bin,
      name: 'bin',
      // Its key is `{ id: 'bin' }`, its item's prefix.
      path: '/bins',
      scopes,
      owner: { customer: 'customerId', counts: binMetric },
      table: { rows: bins, children: [{ rows: tags, column: 'binId' }] },
      read: {
        as: {
          'label-card': {
            description: 'The bin’s label, to print.',
            contentType: 'text/plain; charset=utf-8',
            filename: (bin) => `${bin.label}.txt`,
            render: ({ row }) => `${row.label}\n`,
          },
        },
      },
      create: {
        body: t.Object({ customerId: t.String(), label: t.String({ maxLength: 20 }) }),
        handler: ({ trx, body }) => bins.insert(trx, { ...body, touched: 0 }),
      },
      remove: {},
    }),
    ...resourceRoutes({
      item: Tag,
      name: 'tag',
      path: '/bins/:id/tags',
      params: { id: 'bin' },
      key: { tagId: 'tag' },
      scopes,
      parent: (db, view, params) => bins.find(db, view, params.id),
      table: { rows: tags, parentColumn: 'binId' },
      afterChange: ({ trx, parent }) => bins.update(trx, parent, { touched: parent.touched + 1 }),
      create: {
        body: t.Object({ text: t.String({ maxLength: 20 }) }),
        async handler({ trx, parent, body }) {
          const at = nowIso()
          const tag = { id: newId('tag'), binId: parent.id, customerId: parent.customerId, text: body.text }
          await tables(trx)
            .insertInto('tags')
            .values({ ...tag, createdAt: at, updatedAt: at })
            .execute()
          return tag
        },
      },
      update: {
        body: t.Object({ text: t.String({ maxLength: 20 }) }),
        async handler({ trx, row, body }) {
          if (body.text === row.text) return unchanged(row)
          await tables(trx).updateTable('tags').set({ text: body.text }).where('id', '=', row.id).execute()
          return { ...row, text: body.text }
        },
      },
      remove: {},
    }),
  ],
})
const plugin = {
  ...fixture,
  async setup(given: PluginContext) {
    await fixture.setup?.(given)
    context = given
  },
}

let tp: TestPanel
let token: string
const db = () => tp.panel.store.db
const kernel = () => db().withTables<AuditTables & OutboxTables>()
const post = (path: string, body: Record<string, unknown>) =>
  tp.request('POST', `/api/v1${path}`, { token, body })
const made = async <T>(response: Response) => {
  expect(response.status).toBe(201)
  return (await response.json()) as T
}
const binOf = async (id: string) => (await bins.find(db(), { kind: 'all' }, id)) as Bin
/** The customer's deletion job as the removal sees it: a run that writes its audit entries as the system's. */
const run = {
  signal: new AbortController().signal,
  transaction: (work: Parameters<JobRun['transaction']>[0]) => tp.panel.store.transaction(work),
  audit: (trx, entry) =>
    writeAudit(trx, { userId: null, tokenId: null, requestId: null, sourceAddress: null }, entry),
} as JobRun

beforeAll(async () => {
  tp = await createKernelTestPanel({ plugins: [plugin], defaultCustomerLimits: { bins: 5 } })
  token = await tp.token()
})
afterAll(() => tp.panel.close())

describe('a resource the kernel removes', () => {
  test('its tables are made from the items, with their unique columns', async () => {
    const bin = await made<Bin>(await post('/bins', { customerId: customerA, label: 'same' }))
    const twin = { ...bin, id: newId('bin') }
    await expect(tables(db()).insertInto('bins').values(twin).execute()).rejects.toThrow()
    const other = { ...twin, customerId: customerB }
    await tables(db()).insertInto('bins').values(other).execute()
    await tables(db()).deleteFrom('bins').where('id', 'in', [bin.id, other.id]).execute()
  })

  test('its rows are written with their id of the item’s prefix and their times', async () => {
    const bin = await made<Bin>(await post('/bins', { customerId: customerA, label: 'stamped' }))
    expect(bin.id).toMatch(/^bin_[0-9A-Z]{26}$/)
    expect(bin.updatedAt).toBe(bin.createdAt)
    await Bun.sleep(5)
    expect(await bins.update(db(), bin, { label: 'stamped' })).toEqual(unchanged(bin))
    const touched = (await bins.update(db(), bin, { touched: 7 })) as Bin
    expect(touched).toMatchObject({ id: bin.id, label: 'stamped', touched: 7, createdAt: bin.createdAt })
    expect(touched.updatedAt > bin.updatedAt).toBe(true)
    expect(await binOf(bin.id)).toEqual(touched)
    expect(() => itemRows('crates', t.Object({ id: t.String() }), 'platform')).toThrow(/not a resourceItem/)
    expect((await tp.request('DELETE', `/api/v1/bins/${bin.id}`, { token })).status).toBe(204)
  })

  test('answers the item in another media type, with its ETag, 304 while unchanged, 404 out of view', async () => {
    const bin = await made<Bin>(await post('/bins', { customerId: customerA, label: 'card' }))
    const card = await tp.request('GET', `/api/v1/bins/${bin.id}/label-card`, { token })
    expect(card.status).toBe(200)
    expect(card.headers.get('content-type')).toStartWith('text/plain')
    expect(card.headers.get('content-disposition')).toBe('attachment; filename="card.txt"')
    expect(await card.text()).toBe('card\n')
    const etag = card.headers.get('etag') ?? ''
    expect(etag).not.toBe('')
    const again = await tp.request('GET', `/api/v1/bins/${bin.id}/label-card`, {
      token,
      headers: { 'if-none-match': etag },
    })
    expect(again.status).toBe(304)
    const other = await tp.token({ customerId: customerB })
    const hidden = await tp.request('GET', `/api/v1/bins/${bin.id}/label-card`, { token: other })
    await expectProblem(hidden, 404, 'not_found')
    const document = tp.panel.document as { paths: Record<string, Record<string, { operationId: string }>> }
    expect(document.paths['/api/v1/bins/{id}/label-card']?.get?.operationId).toBe('getStorageBinLabelCard')
    expect((await tp.request('DELETE', `/api/v1/bins/${bin.id}`, { token })).status).toBe(204)
  })

  test('deletes the row and its children; a child’s change touches its parent, one changing nothing does not', async () => {
    const bin = await made<Bin>(await post('/bins', { customerId: customerA, label: 'kept' }))
    const tag = await made<Tag>(await post(`/bins/${bin.id}/tags`, { text: 'red' }))
    expect((await binOf(bin.id)).touched).toBe(1)
    const same = await tp.request('PATCH', `/api/v1/bins/${bin.id}/tags/${tag.id}`, {
      token,
      body: { text: 'red' },
    })
    expect(same.status).toBe(200)
    expect((await binOf(bin.id)).touched).toBe(1)
    const removed = await tp.request('DELETE', `/api/v1/bins/${bin.id}/tags/${tag.id}`, { token })
    expect(removed.status).toBe(204)
    expect((await binOf(bin.id)).touched).toBe(2)
    await made<Tag>(await post(`/bins/${bin.id}/tags`, { text: 'blue' }))
    expect((await tp.request('DELETE', `/api/v1/bins/${bin.id}`, { token })).status).toBe(204)
    expect(await tags.visible(db(), { kind: 'all' }).where('binId', '=', bin.id).execute()).toEqual([])
    await expectProblem(await tp.request('GET', `/api/v1/bins/${bin.id}`, { token }), 404, 'not_found')
  })

  test('a customer being deleted takes none (409 customer_deleting), and it goes with its customer, recorded', async () => {
    const bin = await made<Bin>(await post('/bins', { customerId: customerB, label: 'theirs' }))
    await made<Tag>(await post(`/bins/${bin.id}/tags`, { text: 'green' }))
    await tp.panel.store.transaction((trx) => (context as PluginContext).tenancy.close(trx, customerB))
    expect(await context?.tenancy.closing(db(), customerB)).toBe(true)
    await expectProblem(
      await post('/bins', { customerId: customerB, label: 'late' }),
      409,
      'customer_deleting',
    )
    expect((await post('/bins', { customerId: customerA, label: 'open' })).status).toBe(201)

    expect(await context?.tenancy.removeResources(run, customerB)).toBe(1)
    expect(await bins.visible(db(), { kind: 'all' }).where('customerId', '=', customerB).execute()).toEqual(
      [],
    )
    expect(await tags.visible(db(), { kind: 'all' }).where('customerId', '=', customerB).execute()).toEqual(
      [],
    )
    const audit = await kernel()
      .selectFrom('audit_entries')
      .selectAll()
      .where('action', '=', 'bin.delete')
      .execute()
    expect(audit.filter((entry) => entry.subject_id === bin.id)).toHaveLength(1)
    const events = await kernel()
      .selectFrom('event_outbox')
      .selectAll()
      .where('kind', '=', 'bin.deleted')
      .execute()
    expect(events.filter((event) => event.payload.includes(bin.id))).toHaveLength(1)
    const usage = await tp.request('GET', `/api/v1/usage?customerId=${customerA}`, { token })
    expect(JSON.stringify(await usage.json())).toMatch(/"bins":2/)
    // Run again (the job after a crash): nothing is left, nothing recorded twice.
    expect(await context?.tenancy.removeResources(run, customerB)).toBe(0)
  })

  test('documents customer_deleting on its create', () => {
    const document = tp.panel.document as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>
    }
    expect(JSON.stringify(document.paths['/api/v1/bins']?.post?.responses)).toContain('customer_deleting')
  })
})
