// A parent's deletion through the dependents other plugins declare: refused while one of them counts blocking
// records, and otherwise each removes its records in the parent's job, the plugins set up last first.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Type as t } from '@sinclair/typebox'
import type { JobRun } from '../jobs/job-definition.ts'
import { Problem } from '../problem/problem.ts'
import { defineProblems } from '../problem/problem-code.ts'
import type { Db } from '../store/store.ts'
import { waitFor } from '../testing/async.ts'
import { createKernelTestPanel, type TestPanel } from '../testing/create-test-panel.ts'
import { expectProblem } from '../testing/problems.ts'
import { fixturePlugin } from '../testing/tenancy-fixture.ts'
import type { PluginDefinition } from './define-plugin.ts'
import { blockersOf, defineDependents, removeDependents } from './dependents.ts'
import { defineRoute } from './route.ts'

type Shelf = { id: string; status: string }
type Tables = { shelves: Shelf; labels: { id: string; shelfId: string; permanent: number } }
const tables = (db: Db) => db.withTables<Tables>()

/** The shelves plugin's contract: what goes with a shelf. */
const shelfDependents = defineDependents<Shelf>({
  id: 'shelves.dependents',
  owner: 'shelves',
  description: 'What goes with a shelf.',
})
const shelfProblems = defineProblems({
  shelf_in_use: { status: 409, detail: 'Something keeps the shelf.', description: 'Remove it first.' },
})

/** Who removed what, in order: the test reads it. */
const removals: string[] = []

const shelvesPlugin = fixturePlugin({
  name: 'shelves',
  description: 'Shelves, deleted in a job after their dependents.',
  scopes: ['gadget:create'],
  extensionPoints: [shelfDependents],
  problems: shelfProblems,
  migrations: [
    {
      id: '0001_shelves',
      async up(db) {
        await db.schema
          .createTable('shelves')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('status', 'text', (c) => c.notNull())
          .execute()
        await tables(db)
          .insertInto('shelves')
          .values(['shf_1', 'shf_2'].map((id) => ({ id, status: 'active' })))
          .execute()
      },
    },
  ],
  jobs: (context) => [
    {
      kind: 'shelf.delete',
      description: 'Deletes a shelf after what depends on it.',
      async run(run) {
        const shelf = { id: run.subject.id, status: 'deleting' }
        await removeDependents(context.extensionPoint(shelfDependents), run, shelf)
        await run.transaction((trx) => tables(trx).deleteFrom('shelves').where('id', '=', shelf.id).execute())
        return {}
      },
    },
  ],
  routes: (context) => [
    defineRoute({
      method: 'DELETE',
      path: '/shelves/:id',
      operationId: 'deleteShelf',
      scope: 'gadget:create',
      params: t.Object({ id: t.String() }),
      responses: {
        202: { description: 'Deleting.', schema: t.Object({ id: t.String(), status: t.String() }) },
      },
      problems: [shelfProblems.shelf_in_use],
      change: { action: 'shelf.delete' },
      async handler({ trx, params, enqueueJob }) {
        const shelf = await tables(trx)
          .selectFrom('shelves')
          .selectAll()
          .where('id', '=', params.id)
          .executeTakeFirst()
        if (!shelf) throw new Error('no such shelf')
        const blockers = await blockersOf(context.extensionPoint(shelfDependents), trx, shelf)
        if (blockers.length > 0) throw new Problem(shelfProblems.shelf_in_use, { extensions: { blockers } })
        await tables(trx)
          .updateTable('shelves')
          .set({ status: 'deleting' })
          .where('id', '=', shelf.id)
          .execute()
        await enqueueJob(trx, {
          kind: 'shelf.delete',
          customerId: null,
          subject: { type: 'shelf', id: shelf.id },
        })
        return { id: shelf.id, status: 'deleting' }
      },
    }),
  ],
})

const labels: PluginDefinition = {
  ...fixturePlugin({
    name: 'labels',
    description: 'Labels on shelves: permanent ones keep their shelf.',
    requires: ['shelves'],
    migrations: [
      {
        id: '0001_labels',
        async up(db) {
          await db.schema
            .createTable('labels')
            .addColumn('id', 'text', (c) => c.primaryKey())
            .addColumn('shelfId', 'text', (c) => c.notNull())
            .addColumn('permanent', 'integer', (c) => c.notNull())
            .execute()
          await tables(db)
            .insertInto('labels')
            .values([
              { id: 'lbl_1', shelfId: 'shf_1', permanent: 0 },
              { id: 'lbl_2', shelfId: 'shf_2', permanent: 1 },
            ])
            .execute()
        },
      },
    ],
  }),
  setup(context) {
    context.extensionPoint(shelfDependents).add({
      name: 'labels',
      async blocking(db, shelf) {
        const rows = await tables(db)
          .selectFrom('labels')
          .select('id')
          .where('shelfId', '=', shelf.id)
          .where('permanent', '=', 1)
          .execute()
        return rows.length
      },
      async remove(run, shelf) {
        removals.push(`labels:${shelf.id}`)
        await run.transaction((trx) =>
          tables(trx).deleteFrom('labels').where('shelfId', '=', shelf.id).execute(),
        )
      },
    })
  },
}
const lamps: PluginDefinition = {
  ...fixturePlugin({ name: 'lamps', description: 'Lamps over shelves.', requires: ['shelves', 'labels'] }),
  setup(context) {
    context.extensionPoint(shelfDependents).add({
      name: 'lamps',
      async remove(_run, shelf) {
        removals.push(`lamps:${shelf.id}`)
      },
    })
  },
}

let tp: TestPanel
let token: string

beforeAll(async () => {
  tp = await createKernelTestPanel({ plugins: [lamps, labels, shelvesPlugin], jobs: { pollIntervalMs: 10 } })
  tp.panel.start()
  token = await tp.token()
})
afterAll(() => tp.panel.close())

describe('a parent with dependents', () => {
  test('is refused with the owner’s code while a dependent counts blocking records, naming it', async () => {
    const refused = await tp.request('DELETE', '/api/v1/shelves/shf_2', { token })
    const body = await expectProblem(refused, 409, 'shelf_in_use')
    expect((body as unknown as { blockers: unknown }).blockers).toEqual([{ name: 'labels', count: 1 }])
  })

  test('goes in its job after each dependent removed its records, the plugins set up last first', async () => {
    const accepted = await tp.request('DELETE', '/api/v1/shelves/shf_1', { token })
    expect(accepted.status).toBe(202)
    await waitFor('the shelf to be gone', async () => {
      const row = await tables(tp.panel.store.db)
        .selectFrom('shelves')
        .select('id')
        .where('id', '=', 'shf_1')
        .executeTakeFirst()
      return row === undefined
    })
    expect(removals).toEqual(['lamps:shf_1', 'labels:shf_1'])
    const left = await tables(tp.panel.store.db)
      .selectFrom('labels')
      .select('id')
      .where('shelfId', '=', 'shf_1')
      .execute()
    expect(left).toEqual([])
  })

  test('removal stops at the job’s signal, before the next dependent', async () => {
    const controller = new AbortController()
    const seen: string[] = []
    const registry = {
      add() {},
      get: () => undefined,
      list: () => [
        { name: 'first', remove: async () => void seen.push('first') },
        {
          name: 'second',
          remove: async () => {
            seen.push('second')
            controller.abort(new Error('cancelled'))
          },
        },
      ],
    }
    const run = { signal: controller.signal } as JobRun
    await expect(removeDependents(registry, run, { id: 'shf_x', status: 'deleting' })).rejects.toThrow(
      'cancelled',
    )
    expect(seen).toEqual(['second'])
  })
})
