// Idempotency-Key through the front door: replays, refusals, concurrency, per-caller keys and a restart between.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Type as t } from '@sinclair/typebox'
import { issueApiToken } from '../identity/api-tokens.ts'
import { createUser } from '../identity/users.ts'
import { createPanel } from '../panel/create-panel.ts'
import { definePlugin } from '../plugin/define-plugin.ts'
import { defineRoute, Reply } from '../plugin/route.ts'
import { Problem } from '../problem/problem.ts'
import { defineProblems } from '../problem/problem-code.ts'
import { openSqliteStore } from '../store/sqlite-store.ts'
import { createKernelTestPanel, type TestPanel } from '../testing/create-test-panel.ts'
import { expectProblem } from '../testing/problems.ts'

type NotesTables = { notes: { id: string; text: string } }
const notesProblems = defineProblems({
  note_text_taken: { status: 409, detail: 'Another note has this text.', description: 'Texts are unique.' },
})
let failuresLeft = 0

/** A plugin with one creating POST, so idempotency is tested as any plugin gets it. */
const notesPlugin = definePlugin({
  name: 'notes',
  version: '1.0.0',
  description: 'Test notes.',
  scopes: [{ name: 'note:create', description: 'Create notes' }],
  problems: notesProblems,
  migrations: [
    {
      id: '0001_notes',
      up: (db) =>
        db.schema
          .createTable('notes')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('text', 'text', (c) => c.unique())
          .execute(),
    },
  ],
  routes: (context) => [
    defineRoute({
      method: 'POST',
      audited: false,
      path: '/notes',
      operationId: 'createNote',
      summary: 'Create a note',
      scope: 'note:create',
      idempotent: true,
      body: t.Object({ text: t.String({ minLength: 1, maxLength: 100 }) }),
      responses: { 201: { description: 'Created.' } },
      problems: [notesProblems.note_text_taken],
      async handler({ body }) {
        if (body.text === 'flaky' && failuresLeft-- > 0) throw new Error('transient failure')
        return context.transaction(async (trx) => {
          const notes = trx.withTables<NotesTables>()
          if (await notes.selectFrom('notes').select('id').where('text', '=', body.text).executeTakeFirst()) {
            throw new Problem(notesProblems.note_text_taken)
          }
          const id = `note_${crypto.randomUUID()}`
          await notes.insertInto('notes').values({ id, text: body.text }).execute()
          return Reply.created({ id, text: body.text }, `/notes/${id}`)
        })
      },
    }),
  ],
})

let tp: TestPanel
let token: string
beforeAll(async () => {
  tp = await createKernelTestPanel({ plugins: [notesPlugin] })
  token = await tp.token()
})
afterAll(() => tp.panel.close())

const create = (text: string, key: string | null, as = token) =>
  tp.request('POST', '/api/v1/notes', {
    token: as,
    body: { text },
    headers: key === null ? {} : { 'idempotency-key': key },
  })
const count = async (text: string) =>
  (
    await tp.panel.store.db
      .withTables<NotesTables>()
      .selectFrom('notes')
      .select('id')
      .where('text', '=', text)
      .execute()
  ).length

describe('Idempotency-Key', () => {
  test('the same request again gets the original answer, marked replayed, and creates nothing', async () => {
    const first = await create('hello', 'key-1')
    const again = await create('hello', 'key-1')
    expect(first.status).toBe(201)
    expect(again.status).toBe(201)
    expect(await again.json()).toEqual(await first.json())
    expect(again.headers.get('location')).toBe(first.headers.get('location'))
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    expect(await count('hello')).toBe(1)
  })

  test('a kept answer is sealed at rest: what it showed once (a secret) is not in the store in clear', async () => {
    const first = await create('shown once: whsec_c2VjcmV0LXNob3duLW9uY2U=', 'key-sealed')
    const again = await create('shown once: whsec_c2VjcmV0LXNob3duLW9uY2U=', 'key-sealed')
    expect(await again.json()).toEqual(await first.json())
    const rows = await tp.panel.store.db
      .withTables<{ idempotency_keys: { key: string; response_body: string | null } }>()
      .selectFrom('idempotency_keys')
      .select('response_body')
      .where('key', '=', 'key-sealed')
      .execute()
    expect(rows[0]?.response_body).toStartWith('v1.')
    expect(rows[0]?.response_body).not.toContain('whsec_')
  })

  test('the same key with another body is 422 idempotency_key_reused, and nothing is created', async () => {
    await create('first body', 'key-2')
    await expectProblem(await create('second body', 'key-2'), 422, 'idempotency_key_reused')
    expect(await count('second body')).toBe(0)
  })

  test('the same body with keys in another order is the same request', async () => {
    const headers = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'idempotency-key': 'key-order',
    }
    const send = (body: string) =>
      tp.panel.handle(new Request('http://localhost/api/v1/notes', { method: 'POST', headers, body }))
    expect((await send('{"text":"ordered"}')).status).toBe(201)
    expect((await send(' { "text" : "ordered" } ')).headers.get('idempotent-replayed')).toBe('true')
  })

  test('many concurrent requests with one key create exactly one note', async () => {
    const answers = await Promise.all(Array.from({ length: 25 }, () => create('concurrent', 'key-3')))
    expect(await count('concurrent')).toBe(1)
    for (const answer of answers) {
      if (answer.status === 409) {
        await expectProblem(answer, 409, 'idempotency_request_in_flight')
        expect(answer.headers.get('retry-after')).toBe('1')
      } else {
        expect(answer.status).toBe(201)
      }
    }
    expect(answers.filter((answer) => answer.status === 201).length).toBeGreaterThanOrEqual(1)
  })

  test('keys are scoped to the caller: another caller with the same key creates its own', async () => {
    const other = await tp.token()
    expect((await create('mine', 'shared-key')).status).toBe(201)
    const theirs = await create('theirs', 'shared-key', other)
    expect(theirs.status).toBe(201)
    expect(theirs.headers.get('idempotent-replayed')).toBeNull()
  })

  test('a refusal the handler gave is kept and replayed too', async () => {
    await create('taken', null)
    await expectProblem(await create('taken', 'key-4'), 409, 'note_text_taken')
    const again = await create('taken', 'key-4')
    await expectProblem(again, 409, 'note_text_taken')
    expect(again.headers.get('idempotent-replayed')).toBe('true')
  })

  test('a server failure is not kept, so the client can retry with the same key', async () => {
    failuresLeft = 1
    expect((await create('flaky', 'key-5')).status).toBe(500)
    const retry = await create('flaky', 'key-5')
    expect(retry.status).toBe(201)
    expect(retry.headers.get('idempotent-replayed')).toBeNull()
    expect(await count('flaky')).toBe(1)
  })

  test('a malformed key is 400 invalid_idempotency_key', async () => {
    for (const key of ['', 'x'.repeat(256), 'tab\there']) {
      const body = await expectProblem(await create('never', key), 400, 'invalid_idempotency_key')
      expect(body.errors).toEqual([
        expect.objectContaining({ location: 'header.Idempotency-Key', code: 'invalid_format' }),
      ])
    }
    expect(await count('never')).toBe(0)
  })

  test('without a key every request creates', async () => {
    await create('no key 1', null)
    await create('no key 2', null)
    expect((await count('no key 1')) + (await count('no key 2'))).toBe(2)
  })
})

test('a replay survives a restart of the panel on the same store', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'plinth-idem-'))
  const open = () =>
    createPanel({
      store: openSqliteStore({ path: join(dir, 'db.sqlite') }),
      plugins: [notesPlugin],
      secret: 'x'.repeat(40),
    })
  const send = (panel: Awaited<ReturnType<typeof open>>, secret: string) =>
    panel.handle(
      new Request('http://localhost/api/v1/notes', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${secret}`,
          'content-type': 'application/json',
          'idempotency-key': 'restart',
        },
        body: JSON.stringify({ text: 'durable' }),
      }),
    )
  try {
    const before = await open()
    const user = await createUser(before.store.db, {
      email: 'r@example.test',
      password: 'x'.repeat(12),
      staffRole: 'platform',
    })
    const { token: secret } = await before.store.transaction((trx) =>
      issueApiToken(
        trx,
        user,
        { name: 't', scopes: ['*'], customerId: null, expiresAt: null },
        { defaultDays: 1, maxDays: 2 },
      ),
    )
    const first = await send(before, secret)
    await before.close()
    const after = await open()
    const again = await send(after, secret)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(await again.json()).toEqual(await first.json())
    await after.close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
