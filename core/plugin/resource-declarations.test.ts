// A resource under another resource declared whole: its parent and table found in the caller's view, filters on
// its list, changes recorded under event names the plugin chose, with details only the handler knows, nothing
// recorded when nothing changed, work prepared outside the transaction and undone when the change fails. A resource
// a customer owns declared whole: its customer checked in view, its usage counted under the customer's limits, its
// table made from its item.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Type as t } from '@sinclair/typebox'
import type { AuditTables } from '../audit/audit-tables.ts'
import type { OutboxTables } from '../events/outbox-tables.ts'
import { newId, nowIso } from '../ids/ids.ts'
import { preparedList } from '../pagination/prepared-list.ts'
import { Problem } from '../problem/problem.ts'
import { defineProblems } from '../problem/problem-code.ts'
import { createTableOf } from '../store/schema-table.ts'
import type { Db } from '../store/store.ts'
import { visibleTable } from '../tenancy/visible-table.ts'
import { createKernelTestPanel, type TestPanel } from '../testing/create-test-panel.ts'
import { expectProblem } from '../testing/problems.ts'
import {
  brandA,
  brandB,
  customerA,
  customerB,
  fixturePlugin,
  twoTenants,
} from '../testing/tenancy-fixture.ts'
import { createTestUser } from '../testing/users.ts'
import { recorded, unchanged } from './change.ts'
import { resourceEvents, resourceRoutes } from './resource-routes.ts'
import { defineRoute } from './route.ts'

const Box = t.Object(
  {
    id: t.String(),
    shelfId: t.String(),
    customerId: t.String(),
    label: t.String(),
    fragile: t.Boolean(),
    createdAt: t.String(),
  },
  { $id: 'StorageBox' },
)
type Box = typeof Box.static
type BoxRow = Omit<Box, 'fragile'> & { fragile: number }
type Tables = {
  shelves: { id: string; customerId: string; open: number }
  boxes: BoxRow
  stickers: { id: string; brand_id: string | null; text: string }
}
const tables = (db: Db) => db.withTables<Tables>()
const shelves = visibleTable(tables, 'shelves', { customerColumn: 'customerId' })
const boxes = visibleTable(tables, 'boxes', { customerColumn: 'customerId' })
const stickers = visibleTable(tables, 'stickers', { brandColumn: 'brand_id' })
const toBox = ({ fragile, ...row }: BoxRow): Box => ({ ...row, fragile: fragile === 1 })

const shelfA = 'shf_01JDQ3V6Y4T1ZK0M2N5P7R9SAA'
const shelfB = 'shf_01JDQ3V6Y4T1ZK0M2N5P7R9SBB'
const closedShelf = 'shf_01JDQ3V6Y4T1ZK0M2N5P7R9SCC'

const boxProblems = defineProblems({
  shelf_closed: { status: 409, detail: 'The shelf is closed.', description: 'Boxes go on open shelves.' },
  crate_limit_reached: { status: 422, detail: 'No more crates.', description: 'Past the `crates` limit.' },
})

/** A crate a customer owns directly; `note` optional, so its column may hold null. */
const Crate = t.Object(
  {
    id: t.String(),
    customerId: t.String(),
    label: t.String(),
    note: t.Optional(t.String()),
    weight: t.Integer(),
    createdAt: t.String(),
  },
  { $id: 'StorageCrate' },
)
type Crate = typeof Crate.static
const crates = visibleTable((db: Db) => db.withTables<{ crates: Crate }>(), 'crates', {
  customerColumn: 'customerId',
})
const crateMetric = {
  name: 'crates',
  description: 'Crates.',
  quota: { description: 'How many crates.', problem: boxProblems.crate_limit_reached },
}

/** What `prepare` did beyond the store, and what `undo` undid: the test reads both. */
const outside = { prepared: [] as string[], undone: [] as string[] }

const plugin = fixturePlugin({
  name: 'storage',
  description: 'Boxes on shelves, declared.',
  scopes: ['gadget:read', 'gadget:create', 'widget:admin'],
  tenants: twoTenants,
  events: [
    ...resourceEvents('box', Box, 'A box', ['packed', 'updated']),
    ...resourceEvents('crate', Crate, 'A crate', ['created', 'deleted']),
  ],
  problems: boxProblems,
  usage: [crateMetric],
  migrations: [
    {
      id: '0001_storage',
      async up(db) {
        await db.schema
          .createTable('shelves')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('customerId', 'text', (c) => c.notNull())
          .addColumn('open', 'integer', (c) => c.notNull())
          .execute()
        let boxTable = db.schema.createTable('boxes').addColumn('id', 'text', (c) => c.primaryKey())
        for (const column of ['shelfId', 'customerId', 'label', 'createdAt'])
          boxTable = boxTable.addColumn(column, 'text', (c) => c.notNull())
        await boxTable.addColumn('fragile', 'integer', (c) => c.notNull()).execute()
        await db.schema
          .createTable('stickers')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('brand_id', 'text')
          .addColumn('text', 'text', (c) => c.notNull())
          .execute()
        await tables(db)
          .insertInto('shelves')
          .values([
            { id: shelfA, customerId: customerA, open: 1 },
            { id: shelfB, customerId: customerB, open: 1 },
            { id: closedShelf, customerId: customerA, open: 0 },
          ])
          .execute()
        await tables(db)
          .insertInto('stickers')
          .values([
            { id: 'stk_a', brand_id: brandA, text: 'A' },
            { id: 'stk_b', brand_id: brandB, text: 'B' },
            { id: 'stk_none', brand_id: null, text: 'platform' },
          ])
          .execute()
      },
    },
    { id: '0002_crates', up: (db) => createTableOf(db, 'crates', Crate).execute() },
  ],
  routes: () => [
    ...resourceRoutes({
      item: Crate,
      name: 'crate',
      path: '/crates',
      key: { crateId: 'crt' },
      scopes: { read: 'gadget:read', manage: 'gadget:create' },
      owner: { customer: 'customerId', counts: crateMetric },
      table: { rows: crates },
      list: { filters: { label: 'label' } },
      read: {},
      create: {
        body: t.Object({ customerId: t.String(), label: t.String({ maxLength: 20 }) }),
        async handler({ trx, body }) {
          const crate = { ...body, id: newId('crt'), weight: 0, createdAt: nowIso() }
          await tables(trx).withTables<{ crates: Crate }>().insertInto('crates').values(crate).execute()
          return crate
        },
      },
      async remove({ trx, row }) {
        await tables(trx)
          .withTables<{ crates: Crate }>()
          .deleteFrom('crates')
          .where('id', '=', row.id)
          .execute()
        return row
      },
    }),
    ...resourceRoutes({
      item: Box,
      name: 'box',
      path: '/shelves/:id/boxes',
      params: { id: 'shf' },
      key: { boxId: 'box' },
      scopes: { read: 'gadget:read', manage: 'gadget:create' },
      parent: (db, view, params) => shelves.visible(db, view).where('id', '=', params.id).executeTakeFirst(),
      table: { rows: boxes, toItem: toBox, parentColumn: 'shelfId' },
      list: {
        query: t.Object({
          label: t.Optional(t.String({ maxLength: 20 })),
          fragile: t.Optional(t.Boolean()),
        }),
        filters: {
          label: 'label',
          fragile: (query, fragile: boolean) => query.where('fragile', '=', fragile ? 1 : 0),
        },
      },
      read: {},
      create: {
        body: t.Object({ label: t.String({ maxLength: 20 }), fragile: t.Optional(t.Boolean()) }),
        problems: [boxProblems.shelf_closed],
        record: { event: 'box.packed', details: (box) => ({ label: box.label }) },
        prepare: ({ body }) => {
          outside.prepared.push(body.label)
          return body.label.toUpperCase()
        },
        undo: (shouted) => {
          outside.undone.push(shouted)
        },
        async handler({ trx, parent, body, prepared }) {
          if (parent.open !== 1) throw new Problem(boxProblems.shelf_closed)
          const row = {
            id: newId('box'),
            shelfId: parent.id,
            customerId: parent.customerId,
            label: prepared,
            fragile: body.fragile ? 1 : 0,
            createdAt: nowIso(),
          }
          await tables(trx).insertInto('boxes').values(row).execute()
          return toBox(row)
        },
      },
      update: {
        body: t.Object({ label: t.Optional(t.String({ maxLength: 20 })) }),
        async handler({ trx, row, body }) {
          if (body.label === undefined || body.label === row.label) return unchanged(toBox(row))
          await tables(trx).updateTable('boxes').set({ label: body.label }).where('id', '=', row.id).execute()
          return recorded(toBox({ ...row, label: body.label }), { details: { from: row.label } })
        },
      },
      remove: {
        record: { event: null },
        async handler({ trx, row }) {
          await tables(trx).deleteFrom('boxes').where('id', '=', row.id).execute()
          return toBox(row)
        },
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/shelves/:id/close',
      operationId: 'closeShelf',
      scope: 'gadget:create',
      params: { id: 'shf' },
      responses: { 202: { description: 'Closing.', schema: t.Object({ id: t.String() }) } },
      change: {
        action: 'shelf.close',
        subject: (shelf) => ({ type: 'storage_shelf', id: String(shelf.id) }),
      },
      async handler({ trx, params, view }) {
        const shelf = await shelves.find(trx, view, params.id)
        await tables(trx).updateTable('shelves').set({ open: 0 }).where('id', '=', shelf.id).execute()
        return { id: shelf.id, customerId: shelf.customerId }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/boxes',
      operationId: 'listAllBoxes',
      scope: 'gadget:read',
      query: t.Object({ label: t.Optional(t.String({ maxLength: 20 })) }),
      list: { item: Box, toItem: toBox, filters: { label: 'boxes.label' } },
      handler: ({ view, query }) => boxList.of(dbOf(), view, query),
    }),
    defineRoute({
      method: 'GET',
      path: '/boxes-forgetful',
      operationId: 'listBoxesForgetful',
      scope: 'gadget:read',
      query: t.Object({ label: t.Optional(t.String({ maxLength: 20 })) }),
      list: { item: Box, toItem: toBox, filters: { label: 'boxes.label' } },
      // Hands its prepared list nothing: a label sent would widen the list, so the request fails instead.
      handler: ({ view }) => boxList.of(dbOf(), view, {}),
    }),
    defineRoute({
      method: 'GET',
      path: '/stickers/:id',
      operationId: 'getSticker',
      scope: 'widget:admin',
      params: t.Object({ id: t.String() }),
      responses: { 200: { description: 'A sticker.' } },
      handler: ({ db, view, params }) => stickers.find(db, view, params.id),
    }),
  ],
})

/** The boxes in view, compiled once per shape; the declared filters are the kernel's. */
const boxList = preparedList((db, view, _filters: { label?: string }) => boxes.visible(db, view))
let tp: TestPanel
const dbOf = () => tp.panel.store.db
let token: string

const kernel = () => tp.panel.store.db.withTables<AuditTables & OutboxTables>()
const items = async (response: Response) => ((await response.json()) as { items: Box[] }).items

beforeAll(async () => {
  tp = await createKernelTestPanel({ plugins: [plugin], defaultCustomerLimits: { crates: 1 } })
  token = await tp.token()
})
afterAll(() => tp.panel.close())

describe('a resource under a parent', () => {
  test('create finds the parent in view, prepares outside the transaction, records the event the plugin chose', async () => {
    const created = await tp.request('POST', `/api/v1/shelves/${shelfA}/boxes`, {
      token,
      body: { label: 'books', fragile: true },
    })
    expect(created.status).toBe(201)
    const box = (await created.json()) as Box
    expect(box.label).toBe('BOOKS')
    expect(created.headers.get('location')).toBe(`/api/v1/shelves/${shelfA}/boxes/${box.id}`)
    const entry = await kernel()
      .selectFrom('audit_entries')
      .selectAll()
      .where('subject_id', '=', box.id)
      .executeTakeFirstOrThrow()
    expect([entry.action, entry.subject_type, JSON.parse(entry.details ?? '{}')]).toEqual([
      'box.create',
      'box',
      { label: 'BOOKS' },
    ])
    const events = await kernel().selectFrom('event_outbox').select('kind').execute()
    expect(events.map((event) => event.kind)).toContain('box.packed')
  })

  test('a refusal after prepare undoes its work, and changes nothing', async () => {
    const before = outside.undone.length
    const refused = await tp.request('POST', `/api/v1/shelves/${closedShelf}/boxes`, {
      token,
      body: { label: 'lamp' },
    })
    await expectProblem(refused, 409, 'shelf_closed')
    expect(outside.undone.slice(before)).toEqual(['LAMP'])
    const list = await tp.request('GET', `/api/v1/shelves/${closedShelf}/boxes`, { token })
    expect(await items(list)).toEqual([])
  })

  test('a parent outside the view is 404 for every operation', async () => {
    const limited = await tp.token({ customerId: customerA })
    const list = await tp.request('GET', `/api/v1/shelves/${shelfB}/boxes`, { token: limited })
    await expectProblem(list, 404, 'not_found')
    const create = await tp.request('POST', `/api/v1/shelves/${shelfB}/boxes`, {
      token: limited,
      body: { label: 'x' },
    })
    await expectProblem(create, 404, 'not_found')
  })

  test('the list is narrowed by the declared filters, the table read in view and under its parent', async () => {
    for (const label of ['cups', 'plates'])
      await tp.request('POST', `/api/v1/shelves/${shelfA}/boxes`, {
        token,
        body: { label, fragile: label === 'cups' },
      })
    await tp.request('POST', `/api/v1/shelves/${shelfB}/boxes`, { token, body: { label: 'cups' } })
    const byLabel = await tp.request('GET', `/api/v1/shelves/${shelfA}/boxes?label=CUPS`, { token })
    expect((await items(byLabel)).map((box) => box.label)).toEqual(['CUPS'])
    const fragile = await tp.request('GET', `/api/v1/shelves/${shelfA}/boxes?fragile=true`, { token })
    expect((await items(fragile)).map((box) => box.label).sort()).toEqual(['BOOKS', 'CUPS'])
    const all = await tp.request('GET', `/api/v1/shelves/${shelfA}/boxes`, { token })
    expect((await items(all)).every((box) => box.shelfId === shelfA)).toBe(true)
  })

  test('a prepared list gets the declared filters too; one it was not handed fails rather than widens', async () => {
    const cups = await tp.request('GET', '/api/v1/boxes?label=CUPS', { token })
    expect((await items(cups)).map((box) => box.shelfId).sort()).toEqual([shelfA, shelfB].sort())
    const limited = await tp.token({ customerId: customerB })
    const theirs = await tp.request('GET', '/api/v1/boxes?label=CUPS', { token: limited })
    expect((await items(theirs)).map((box) => box.shelfId)).toEqual([shelfB])
    const forgetful = await tp.request('GET', '/api/v1/boxes-forgetful?label=CUPS', { token })
    expect(forgetful.status).toBe(500)
  })

  test('read and update find the row under its parent; another shelf’s box is 404', async () => {
    const [box] = await items(await tp.request('GET', `/api/v1/shelves/${shelfB}/boxes`, { token }))
    const elsewhere = await tp.request('GET', `/api/v1/shelves/${shelfA}/boxes/${box?.id}`, { token })
    await expectProblem(elsewhere, 404, 'not_found')
    const read = await tp.request('GET', `/api/v1/shelves/${shelfB}/boxes/${box?.id}`, { token })
    expect(((await read.json()) as Box).label).toBe('CUPS')
  })

  test('an update records the details its handler gives; one that changes nothing records nothing', async () => {
    const [box] = await items(await tp.request('GET', `/api/v1/shelves/${shelfB}/boxes`, { token }))
    const path = `/api/v1/shelves/${shelfB}/boxes/${box?.id}`
    const same = await tp.request('PATCH', path, { token, body: { label: 'CUPS' } })
    expect(same.status).toBe(200)
    const changed = await tp.request('PATCH', path, { token, body: { label: 'mugs' } })
    expect(((await changed.json()) as Box).label).toBe('mugs')
    const entries = await kernel()
      .selectFrom('audit_entries')
      .selectAll()
      .where('subject_id', '=', box?.id ?? '')
      .where('action', '=', 'box.update')
      .execute()
    expect(entries.map((entry) => JSON.parse(entry.details ?? '{}'))).toEqual([{ from: 'CUPS' }])
    const updates = await kernel()
      .selectFrom('event_outbox')
      .select('kind')
      .where('kind', '=', 'box.updated')
      .execute()
    expect(updates).toHaveLength(1)
  })

  test('a delete declared with no event writes its audit entry alone', async () => {
    const [box] = await items(await tp.request('GET', `/api/v1/shelves/${shelfB}/boxes`, { token }))
    const deleted = await tp.request('DELETE', `/api/v1/shelves/${shelfB}/boxes/${box?.id}`, { token })
    expect(deleted.status).toBe(204)
    const entry = await kernel()
      .selectFrom('audit_entries')
      .select('action')
      .where('subject_id', '=', box?.id ?? '')
      .where('action', '=', 'box.delete')
      .executeTakeFirst()
    expect(entry?.action).toBe('box.delete')
  })
})

describe('a declared change', () => {
  test('answers 202 when its route declares it, its audit entry on the subject it declares', async () => {
    const response = await tp.request('POST', `/api/v1/shelves/${shelfB}/close`, { token })
    expect(response.status).toBe(202)
    const entry = await kernel()
      .selectFrom('audit_entries')
      .selectAll()
      .where('action', '=', 'shelf.close')
      .executeTakeFirstOrThrow()
    expect([entry.subject_type, entry.subject_id, entry.customer_id]).toEqual([
      'storage_shelf',
      shelfB,
      customerB,
    ])
  })
})

describe('a table of brands’ rows', () => {
  test('platform staff read any, a brand’s staff only their brand’s, and others are 404', async () => {
    expect((await tp.request('GET', '/api/v1/stickers/stk_b', { token })).status).toBe(200)
    const brandStaff = await createTestUser(tp.panel.store.db, {
      email: 'brand-a@example.test',
      staffRole: 'brand',
      brandId: brandA,
    })
    const theirs = await tp.token({ user: brandStaff })
    expect((await tp.request('GET', '/api/v1/stickers/stk_a', { token: theirs })).status).toBe(200)
    await expectProblem(
      await tp.request('GET', '/api/v1/stickers/stk_b', { token: theirs }),
      404,
      'not_found',
    )
  })

  test('a view of customers reaches no brand’s row, nor the rows of no brand', async () => {
    const db = tp.panel.store.db
    const ids = async (view: Parameters<typeof stickers.visible>[1]) =>
      (await stickers.visible(db, view).execute()).map((row) => row.id).sort()
    expect(await ids({ kind: 'all' })).toEqual(['stk_a', 'stk_b', 'stk_none'])
    expect(await ids({ kind: 'brand', brandId: brandA })).toEqual(['stk_a'])
    expect(await ids({ kind: 'customers', customerIds: [customerA] })).toEqual([])
  })
})

describe('a resource a customer owns', () => {
  const create = (body: Record<string, unknown>, as = token) =>
    tp.request('POST', '/api/v1/crates', { token: as, body })
  const used = async (customerId: string) => {
    const usage = await tp.request('GET', `/api/v1/usage?customerId=${customerId}`, { token })
    return JSON.stringify(await usage.json()).match(/"crates":(\d+)/)?.[1]
  }

  test('names a customer the caller sees, else 422 unknown_customer at the field, and nothing is made', async () => {
    const limited = await tp.token({ customerId: customerA })
    const theirs = await create({ customerId: customerB, label: 'theirs' }, limited)
    expect(await expectProblem(theirs, 422, 'unknown_customer')).toMatchObject({
      errors: [{ location: 'body.customerId' }],
    })
    await expectProblem(await create({ customerId: 'cus_nobody', label: 'x' }), 422, 'unknown_customer')
    expect(await crates.visible(dbOf(), { kind: 'all' }).execute()).toEqual([])
  })

  test('counts against the customer’s limit, refused past it, and a deletion gives its place back', async () => {
    const created = await create({ customerId: customerA, label: 'first' })
    expect(created.status).toBe(201)
    const crate = (await created.json()) as Crate
    expect(crate.note).toBeUndefined()
    expect(await used(customerA)).toBe('1')
    await expectProblem(await create({ customerId: customerA, label: 'second' }), 422, 'crate_limit_reached')
    expect(await crates.visible(dbOf(), { kind: 'all' }).execute()).toHaveLength(1)
    const deleted = await tp.request('DELETE', `/api/v1/crates/${crate.id}`, { token })
    expect(deleted.status).toBe(204)
    expect(await used(customerA)).toBe('0')
    expect((await create({ customerId: customerA, label: 'second' })).status).toBe(201)
  })

  test('its list filters by its customer and by the fields its filters name, checked as the item’s', async () => {
    const labels = async (query: string) => {
      const response = await tp.request('GET', `/api/v1/crates?${query}`, { token })
      return ((await response.json()) as { items: Crate[] }).items.map((crate) => crate.label)
    }
    expect(await labels(`customerId=${customerA}`)).toEqual(['second'])
    expect(await labels(`customerId=${customerB}`)).toEqual([])
    expect(await labels('label=second')).toEqual(['second'])
    expect(await labels('label=first')).toEqual([])
    const unknown = await tp.request('GET', '/api/v1/crates?weight=0', { token })
    await expectProblem(unknown, 422, 'validation_failed')
  })

  test('documents the refusals its declaration makes', () => {
    const document = tp.panel.document as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>
    }
    const text = JSON.stringify(document.paths['/api/v1/crates']?.post?.responses)
    for (const code of ['unknown_customer', 'crate_limit_reached', 'customer_suspended'])
      expect(text).toContain(code)
    expect(JSON.stringify(document.paths['/api/v1/crates/{crateId}']?.delete?.responses)).not.toContain(
      'crate_limit_reached',
    )
  })
})
