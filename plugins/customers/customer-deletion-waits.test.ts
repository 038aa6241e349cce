// A customer's deletion whose databases cannot be dropped yet (their server refuses) says why on its job while it
// waits, does not wait out its five minutes once their jobs gave up, and finishes soon after the server is back.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import mysql from 'mysql2/promise'
import { createTestPanel, type TestPanel, waitFor } from '../../hosts/testing/index.ts'

const login = `plinth_wait_${crypto.randomUUID().slice(0, 8)}`
// The machine's MariaDB as its administrator (.ci/run starts it): it locks and unlocks the staff server's login.
const admin = mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', password: '' })
let tp: TestPanel
let call: (method: string, path: string, body?: unknown) => Promise<Response>

beforeAll(async () => {
  tp = await createTestPanel({ jobs: { pollIntervalMs: 10, retryBaseMs: 50, retryMaxMs: 200 } })
  tp.panel.start()
  const token = await tp.token()
  call = (method, path, body) =>
    tp.request(method, `/api/v1${path}`, { token, ...(body === undefined ? {} : { body }) })
  await (await admin).query(`CREATE USER '${login}'@'127.0.0.1' IDENTIFIED BY 'wait-secret-1'`)
  await (await admin).query(`GRANT ALL PRIVILEGES ON *.* TO '${login}'@'127.0.0.1' WITH GRANT OPTION`)
})
afterAll(async () => {
  await tp.panel.close()
  await (await admin).query(`DROP USER IF EXISTS '${login}'@'127.0.0.1'`)
  await (await admin).end()
})

const read = async <T>(path: string) => (await (await call('GET', path)).json()) as T

test('says on its job why it waits, and finishes once the server is back', async () => {
  const server = await call('POST', '/database-servers', {
    name: 'waiting-mariadb',
    engine: 'mariadb',
    host: '127.0.0.1',
    port: 3306,
    username: login,
    password: 'wait-secret-1',
  })
  expect(server.status).toBe(201)
  const customerId = (
    (await (await call('POST', '/customers', { name: 'Closing' })).json()) as { id: string }
  ).id
  const made = await call('POST', '/databases', { customerId, engine: 'mariadb', name: 'shop' })
  expect(made.status).toBe(201)
  const databaseId = ((await made.json()) as { id: string }).id
  await waitFor('the database to be made', async () => {
    const database = await read<{ status: string }>(`/databases/${databaseId}`)
    await Bun.sleep(20)
    return database.status === 'active'
  })

  await (await admin).query(`ALTER USER '${login}'@'127.0.0.1' ACCOUNT LOCK`)
  // The panel's open connections of that login go too: from now on it cannot reach the server.
  const [open] = await (await admin).query('SELECT id FROM information_schema.processlist WHERE user = ?', [
    login,
  ])
  for (const { id } of open as { id: number }[]) await (await admin).query(`KILL ${Number(id)}`)
  const deletion = await call('DELETE', `/customers/${customerId}`)
  expect(deletion.status).toBe(202)
  const { jobId } = (await deletion.json()) as { jobId: string }
  const waiting = await waitFor(
    'the deletion to say why it waits',
    async () => {
      const job = await read<{ step: string | null; error: { message: string } | null }>(`/jobs/${jobId}`)
      await Bun.sleep(50)
      const said = `${job.step} ${job.error?.message}`
      return said.includes('account is locked') ? said : null
    },
    15_000,
  )
  expect(waiting).toContain('databases and database users')

  // The database's jobs give up within a second here; the deletion then tries again rather than waiting minutes.
  await (await admin).query(`ALTER USER '${login}'@'127.0.0.1' ACCOUNT UNLOCK`)
  await waitFor(
    'the customer to be gone',
    async () => {
      await Bun.sleep(50)
      return (await call('GET', `/customers/${customerId}`)).status === 404
    },
    30_000,
  )
  const [rows] = await (await admin).query('SHOW DATABASES LIKE ?', [`%shop`])
  expect(rows).toEqual([])
}, 60_000)
