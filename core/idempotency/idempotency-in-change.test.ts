// Idempotency-Key on a route whose change the kernel runs: the claim, the change, its audit entry and event, and
// the kept answer commit as one transaction (or, on a refusal of the request, nothing but the kept refusal).

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Type as t } from '@sinclair/typebox'
import { definePlugin } from '../plugin/define-plugin.ts'
import { defineRoute } from '../plugin/route.ts'
import { Problem } from '../problem/problem.ts'
import { defineProblems } from '../problem/problem-code.ts'
import { createKernelTestPanel, type TestPanel } from '../testing/create-test-panel.ts'
import { expectProblem } from '../testing/problems.ts'

const Box = t.Object({ id: t.String(), label: t.String() })
type BoxesTables = { boxes: { id: string; label: string } }
const boxesProblems = defineProblems({
  box_label_taken: { status: 409, detail: 'Another box has this label.', description: 'Labels are unique.' },
})
let failuresLeft = 0

const boxesPlugin = definePlugin({
  name: 'boxes',
  version: '1.0.0',
  description: 'Test boxes, created through a recorded change.',
  scopes: [{ name: 'box:create', description: 'Create boxes' }],
  problems: boxesProblems,
  events: [{ kind: 'box.created', description: 'A box was created.', payload: Box }],
  migrations: [
    {
      id: '0001_boxes',
      up: (db) =>
        db.schema
          .createTable('boxes')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('label', 'text', (c) => c.unique())
          .execute(),
    },
  ],
  routes: () => [
    defineRoute({
      method: 'POST',
      path: '/boxes',
      operationId: 'createBox',
      summary: 'Create a box',
      scope: 'box:create',
      idempotent: true,
      body: t.Object({ label: t.String({ minLength: 1, maxLength: 100 }) }),
      responses: {
        201: { description: 'Created.', schema: t.Object({ id: t.String(), label: t.String() }) },
      },
      problems: [boxesProblems.box_label_taken],
      change: { action: 'box.create', event: 'box.created', details: (box) => ({ label: box.label }) },
      async handler({ trx, body }) {
        const boxes = trx.withTables<BoxesTables>()
        const id = `box_${crypto.randomUUID()}`
        // Written before the checks below, so a refusal shows that the whole change is rolled back.
        await boxes
          .insertInto('boxes')
          .values({ id, label: `${body.label} (draft)` })
          .execute()
        if (body.label === 'flaky' && failuresLeft-- > 0) throw new Error('transient failure')
        if (await boxes.selectFrom('boxes').select('id').where('label', '=', body.label).executeTakeFirst())
          throw new Problem(boxesProblems.box_label_taken)
        await boxes.updateTable('boxes').set({ label: body.label }).where('id', '=', id).execute()
        return { id, label: body.label }
      },
    }),
  ],
})

let tp: TestPanel
let token: string
beforeAll(async () => {
  tp = await createKernelTestPanel({ plugins: [boxesPlugin] })
  token = await tp.token()
})
afterAll(() => tp.panel.close())

const create = (label: string, key: string | null) =>
  tp.request('POST', '/api/v1/boxes', {
    token,
    body: { label },
    headers: key === null ? {} : { 'idempotency-key': key },
  })
const boxesLabelled = async (label: string) =>
  (
    await tp.panel.store.db
      .withTables<BoxesTables>()
      .selectFrom('boxes')
      .select('id')
      .where('label', 'like', `${label}%`)
      .execute()
  ).length
const keyRows = (key: string) =>
  tp.panel.store.db
    .withTables<{ idempotency_keys: { key: string; state: string; response_status: number | null } }>()
    .selectFrom('idempotency_keys')
    .select(['state', 'response_status'])
    .where('key', '=', key)
    .execute()

/** Counts the transactions begun while `work` runs. */
async function transactionsDuring(work: () => Promise<unknown>): Promise<number> {
  let begun = 0
  const stop = tp.panel.store.observeStatements((statement) => {
    if (/^\s*(begin|start transaction)/i.test(statement)) begun += 1
  })
  try {
    await work()
  } finally {
    stop()
  }
  return begun
}

describe('Idempotency-Key on a recorded change', () => {
  test('claim, change, audit entry, event and kept answer are one transaction; the replay runs none', async () => {
    let first: Response | undefined
    expect(
      await transactionsDuring(async () => {
        first = await create('one commit', 'key-one')
      }),
    ).toBe(1)
    expect(first?.status).toBe(201)
    const body = (await first?.json()) as { id: string }
    expect(first?.headers.get('location')).toBe(`/api/v1/boxes/${body.id}`)
    expect(await keyRows('key-one')).toEqual([{ state: 'done', response_status: 201 }])
    const audit = await tp.request('GET', `/api/v1/audit?action=box.create`, { token })
    const entries = ((await audit.json()) as { items: { subject: { id: string }; details: unknown }[] }).items
    expect(entries.find((entry) => entry.subject.id === body.id)?.details).toEqual({ label: 'one commit' })

    let again: Response | undefined
    expect(
      await transactionsDuring(async () => {
        again = await create('one commit', 'key-one')
      }),
    ).toBe(0)
    expect(again?.headers.get('idempotent-replayed')).toBe('true')
    expect(await again?.json()).toEqual(body)
    expect(await boxesLabelled('one commit')).toBe(1)
  })

  test('a refusal rolls the change back and is kept: the same request gets it again', async () => {
    expect((await create('taken', null)).status).toBe(201)
    await expectProblem(await create('taken', 'key-refused'), 409, 'box_label_taken')
    expect(await boxesLabelled('taken')).toBe(1)
    const again = await create('taken', 'key-refused')
    await expectProblem(again, 409, 'box_label_taken')
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(await keyRows('key-refused')).toEqual([{ state: 'done', response_status: 409 }])
  })

  test('a failure on the server side keeps nothing: the client retries with the same key', async () => {
    failuresLeft = 1
    expect((await create('flaky', 'key-flaky')).status).toBe(500)
    expect(await keyRows('key-flaky')).toEqual([])
    expect(await boxesLabelled('flaky')).toBe(0)
    const retried = await create('flaky', 'key-flaky')
    expect(retried.status).toBe(201)
    expect(retried.headers.get('idempotent-replayed')).toBeNull()
  })

  test('the same key with another body is refused, and the refusal does not replace the kept answer', async () => {
    expect((await create('first label', 'key-reused')).status).toBe(201)
    await expectProblem(await create('second label', 'key-reused'), 422, 'idempotency_key_reused')
    expect(await boxesLabelled('second label')).toBe(0)
    expect((await create('first label', 'key-reused')).headers.get('idempotent-replayed')).toBe('true')
  })

  test('eight requests at once with one key make one box; every answer is the first one, none is in flight', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => create('at once', 'key-race')))
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(201))
    const ids = new Set(
      await Promise.all(answers.map(async (answer) => ((await answer.json()) as { id: string }).id)),
    )
    expect(ids.size).toBe(1)
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') === 'true')).toHaveLength(7)
    expect(await boxesLabelled('at once')).toBe(1)
  })
})
