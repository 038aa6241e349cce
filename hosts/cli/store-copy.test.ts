// `store copy` as an operator runs it, a real CLI process beside a real server: an installation made through the API
// (with the DNS zones plugin from PLINTH_CONFIG) is copied into a fresh PostgreSQL database, counted table by table,
// and then served from PostgreSQL with the same secret: its token, lists, cursors and sealed webhook secret still work.

import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import postgres from 'postgres'
import { Webhook as StandardWebhook } from 'standardwebhooks'
import { createPanel, openPostgresStore, type Panel } from '../../core/host.ts'
import { installationPlugins } from '../plinth-config.ts'
import { settingsFromEnv } from '../settings.ts'
import { createTestDatabase, repoRoot } from '../testing/host-process.ts'
import {
  apiClient,
  type CliResult,
  cliStaffToken,
  createProcessTracker,
  type Page,
  type Standalone,
  startWebhookReceiver,
  waitFor,
} from '../testing/index.ts'

const { tempDataDir, runCli, startStandalone, cleanup } = createProcessTracker('plinth-store-copy-')
const receiver = startWebhookReceiver()

/** The machine's PostgreSQL, where each test makes (and this file drops) databases of its own. */
afterAll(async () => {
  await cleanup()
  receiver.stop()
})

/** A fresh, empty database, dropped when the run ends; its URL. Fails saying so when PostgreSQL is not there. */
const emptyDatabase = createTestDatabase

/** A connection to one of the test's databases (`schema` on its search path), closed by `use`'s end. */
async function inDatabase<T>(url: string, use: (sql: postgres.Sql) => Promise<T>, schema?: string) {
  const sql = postgres(url, {
    max: 1,
    onnotice: () => {},
    ...(schema ? { connection: { search_path: schema } } : {}),
  })
  try {
    return await use(sql)
  } finally {
    await sql.end()
  }
}

/** The tables of `schema` (default the connection's own) and their row counts. */
async function postgresCounts(url: string, schema?: string): Promise<Record<string, number>> {
  return inDatabase(
    url,
    async (sql) => {
      const tables = await sql<{ name: string }[]>`select table_name as name from information_schema.tables
        where table_schema = current_schema() and table_type = 'BASE TABLE'`
      const counts: Record<string, number> = {}
      for (const { name } of tables)
        counts[name] = Number((await sql.unsafe(`select count(*) as n from "${name}"`))[0]?.n)
      return counts
    },
    schema,
  )
}

/** The objects of the target's schema besides none: tables, views, sequences and functions, by name. */
async function schemaObjects(url: string, schema = 'public'): Promise<string[]> {
  return inDatabase(url, async (sql) => {
    const relations = await sql<{ name: string }[]>`select c.relname as name from pg_class c
      join pg_namespace n on n.oid = c.relnamespace where n.nspname = ${schema} and c.relkind in ('r', 'v', 'S')`
    const functions = await sql<{ name: string }[]>`select p.proname as name from pg_proc p
      join pg_namespace n on n.oid = p.pronamespace where n.nspname = ${schema}`
    return [...relations, ...functions].map((row) => row.name).sort()
  })
}

/** The tables of the SQLite store in `dataDir` and their row counts, read as they are now. */
function sqliteCounts(dataDir: string): Record<string, number> {
  const db = new Database(join(dataDir, 'plinth.sqlite'), { readonly: true })
  try {
    const tables = db
      .query<{ name: string }, []>("select name from sqlite_master where type = 'table'")
      .all()
      .map((row) => row.name)
    return Object.fromEntries(
      tables.map((name) => [
        name,
        db.query<{ n: number }, []>(`select count(*) as n from "${name}"`).get()?.n ?? -1,
      ]),
    )
  } finally {
    db.close()
  }
}

/** The report's table: name → [rows in SQLite (null: PostgreSQL's own), rows in PostgreSQL]. */
function reportedCounts(stdout: string): Record<string, [number | null, number]> {
  const counts: Record<string, [number | null, number]> = {}
  for (const line of stdout.split('\n')) {
    const row = /^([a-z_]+)\s+(\d+|-)\s+(\d+)(?:\s|$)/.exec(line)
    if (row?.[1] && row[3]) counts[row[1]] = [row[2] === '-' ? null : Number(row[2]), Number(row[3])]
  }
  return counts
}

const config = join(repoRoot, 'examples', 'dns-zones', 'plinth.config.ts')
/**
 * The hosts' settings. The store copied from is the embedded SQLite one, so on the PostgreSQL test run too the server
 * and CLI keep the installation in DATA_DIR (an empty DATABASE_URL is unset).
 */
const settingsEnv = {
  PLINTH_CONFIG: config,
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
  LOG_REQUESTS: '0',
  // The copy taken while the server writes posts as fast as it answers: what is tested is the snapshot, not the
  // token's rate limit (1,200 a minute by default, which a quick machine passes during a copy).
  RATE_LIMIT_PER_MINUTE: '1000000',
  DATABASE_URL: '',
  DATABASE_SCHEMA: '',
}

/** `store copy` on `dataDir` with the installation's settings. */
function storeCopy(dataDir: string, ...args: string[]): Promise<CliResult> {
  return runCli(dataDir, ['store', 'copy', ...args], settingsEnv)
}

/** Every item of a list, following `nextCursor` with `limit` per page; the pages as they came. */
async function pagesOf<T>(
  call: <B>(method: string, path: string) => Promise<{ status: number; body: B }>,
  path: string,
  limit = 2,
): Promise<Page<T>[]> {
  const pages: Page<T>[] = []
  let cursor: string | null = null
  do {
    const query: string = `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`
    const page: { status: number; body: Page<T> } = await call<Page<T>>('GET', `${path}${query}`)
    expect(page.status).toBe(200)
    pages.push(page.body)
    cursor = page.body.nextCursor
  } while (cursor)
  return pages
}

describe('store copy', () => {
  let dataDir: string
  let server: Standalone
  let token: string
  let call: ReturnType<typeof apiClient>
  let webhook: { id: string; secret: string }
  let customerIds: string[]
  let siteIds: string[]
  let jobIds: string[]
  let developerId: string
  let zoneId: string
  /** Answers of the SQLite server before the copy, to compare PostgreSQL's with. */
  const before = new Map<string, unknown>()
  /** The database the first test copied into. */
  let copied: string | undefined

  beforeAll(async () => {
    dataDir = tempDataDir()
    server = await startStandalone(dataDir, settingsEnv)
    token = await cliStaffToken((dir, args) => runCli(dir, args, settingsEnv), dataDir)
    call = apiClient(server, token)
    const endpoint = await call<{ id: string; secret: string }>('POST', '/webhooks', {
      url: receiver.url,
      events: ['*'],
    })
    expect(endpoint.status).toBe(201)
    webhook = endpoint.body
    customerIds = []
    for (const name of ['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli']) {
      const customer = await call<{ id: string }>('POST', '/customers', { name })
      expect(customer.status).toBe(201)
      customerIds.push(customer.body.id)
    }
    const [acme = ''] = customerIds
    siteIds = []
    jobIds = []
    for (const [name, domain] of [
      ['Shop', 'shop.example.com'],
      ['Blog', 'blog.example.com'],
    ]) {
      const site = await call<{ id: string; jobId: string }>('POST', '/sites', {
        customerId: acme,
        name,
        type: 'wordpress',
        domain,
      })
      expect(site.status).toBe(201)
      siteIds.push(site.body.id)
      jobIds.push(site.body.jobId)
    }
    for (const jobId of jobIds)
      await waitFor(
        `job ${jobId} to finish`,
        async () => (await call<{ status: string }>('GET', `/jobs/${jobId}`)).body.status === 'succeeded',
        15_000,
      )
    const zone = await call<{ id: string }>('POST', '/dns-zones', { customerId: acme, name: 'acme.example' })
    expect(zone.status).toBe(201)
    zoneId = zone.body.id
    const record = await call('POST', `/dns-zones/${zoneId}/records`, {
      name: 'www',
      type: 'A',
      content: '192.0.2.1',
    })
    expect(record.status).toBe(201)
    const developer = await runCli(
      dataDir,
      ['user', 'create', '--email', 'dev@example.com', '--password', 'correct horse battery'],
      settingsEnv,
    )
    expect(developer.exitCode).toBe(0)
    developerId = /\((usr_[0-9A-Z]{26})\)/.exec(developer.stdout)?.[1] ?? ''
    const member = await call('POST', `/customers/${acme}/members`, {
      email: 'dev@example.com',
      role: 'developer',
    })
    expect(member.status).toBe(201)
    // Quiet before the copy: every event fanned out and delivered, so the SQLite store's counts hold still.
    await waitFor(
      'every event to be delivered',
      () => {
        const db = new Database(join(dataDir, 'plinth.sqlite'), { readonly: true })
        try {
          const pending = db
            .query<{ n: number }, []>(
              `select (select count(*) from event_outbox where dispatched_at is null)
                + (select count(*) from webhook_deliveries where status = 'pending') as n`,
            )
            .get()
          return pending?.n === 0
        } finally {
          db.close()
        }
      },
      15_000,
    )
    for (const path of [
      '/customers',
      '/sites',
      `/dns-zones/${zoneId}/records`,
      `/customers/${acme}/members`,
      '/audit',
    ])
      before.set(path, await pagesOf(call, path))
    for (const path of [`/jobs/${jobIds[0]}`, `/webhooks/${webhook.id}`, `/sites/${siteIds[1]}`])
      before.set(path, (await call('GET', path)).body)
  }, 60_000)

  test('copies every table of a running installation, the plugins’ from PLINTH_CONFIG too, and counts them on both sides', async () => {
    const target = await emptyDatabase()
    const inSqlite = sqliteCounts(dataDir)
    const result = await storeCopy(dataDir, '--to', target)
    expect(result.stderr).toBe('')
    expect(result.exitCode).toBe(0)
    copied = target

    const reported = reportedCounts(result.stdout)
    const copiedTables = Object.keys(inSqlite).filter((name) => !name.startsWith('sqlite_'))
    expect(copiedTables).toEqual(expect.arrayContaining(['dns_zones', 'dns_records']))
    expect([inSqlite.dns_zones, inSqlite.dns_records]).toEqual([1, 1])
    const inPostgres = await postgresCounts(target)
    for (const name of copiedTables) {
      const rows = inSqlite[name] ?? -1
      expect([name, ...(reported[name] ?? [])]).toEqual([name, rows, rows])
      expect([name, inPostgres[name]]).toEqual([name, rows])
    }
    // Tables only PostgreSQL has (kept by its triggers) are listed as its own, not copied.
    const own = Object.keys(inPostgres).filter((name) => !(name in inSqlite))
    expect(own).toContain('change_versions')
    for (const name of own) expect(reported[name]).toEqual([null, inPostgres[name] ?? -1])

    // The kernel's migration records match row for row, so the instances apply nothing twice.
    const migrations = (db: { owner: string; id: string; applied_at: string }[]) =>
      db.map((row) => `${row.owner}/${row.id}@${row.applied_at}`).sort()
    const sqliteMigrations = new Database(join(dataDir, 'plinth.sqlite'), { readonly: true })
    const fromSqlite = migrations(
      sqliteMigrations
        .query<{ owner: string; id: string; applied_at: string }, []>('select * from plinth_migrations')
        .all(),
    )
    sqliteMigrations.close()
    const fromPostgres = migrations(
      await inDatabase(
        target,
        (sql) => sql<{ owner: string; id: string; applied_at: string }[]>`
        select owner, id, applied_at from plinth_migrations`,
      ),
    )
    expect(fromPostgres).toEqual(fromSqlite)

    const lines = result.stdout.trimEnd().split('\n')
    expect(lines[0]).toContain(`${dataDir}/plinth.sqlite (read in one transaction: a consistent snapshot)`)
    const total = copiedTables.reduce((sum, name) => sum + (inSqlite[name] ?? 0), 0)
    expect(result.stdout).toMatch(
      new RegExp(`^Copied ${copiedTables.length} tables, ${total} rows in \\d+\\.\\d\\d s;`, 'm'),
    )
    expect(result.stdout).toContain(`The secret is in ${dataDir}/secret.key`)
  })

  test('a copy taken while the server writes is one snapshot: writes go on, and the counts still match', async () => {
    const target = await emptyDatabase()
    const customersBefore = sqliteCounts(dataDir).customers ?? 0
    let copying = true
    const copy = storeCopy(dataDir, '--to', target, '--schema', 'plinth').finally(() => {
      copying = false
    })
    const statuses: number[] = []
    while (copying) statuses.push((await call('POST', '/customers', { name: 'During the copy' })).status)
    const result = await copy
    expect(result.stderr).toBe('')
    expect(result.exitCode).toBe(0)
    expect(statuses.length).toBeGreaterThan(0)
    expect(new Set(statuses)).toEqual(new Set([201]))

    const customers = reportedCounts(result.stdout).customers ?? [-1, -1]
    const inPostgres = await postgresCounts(target, 'plinth')
    expect(customers[1]).toBe(customers[0] ?? -1)
    expect(inPostgres.customers).toBe(customers[0] ?? -1)
    expect(customers[0]).toBeGreaterThanOrEqual(customersBefore)
    expect(customers[0]).toBeLessThanOrEqual(customersBefore + statuses.length)
    // A customer's tenant row and its creation's audit entry come in the same snapshot as the customer.
    expect(inPostgres.tenants).toBe(inPostgres.customers)
    expect(await schemaObjects(target)).toEqual([])
    expect(result.stdout).toContain('DATABASE_SCHEMA=plinth')
  })

  test('on PostgreSQL with the same secret, the copied installation answers as it did: token, lists, cursors, webhook secret', async () => {
    if (!copied) throw new Error('the first test made no copy')
    server.process.kill('SIGTERM')
    expect(await server.process.exited).toBe(0)
    // Files only, as the hosts run: a local node serving would start nginx on ports 80 and 443 and outlive the test.
    const settings = settingsFromEnv({ DATA_DIR: dataDir, LOCAL_SITES: 'files', ...settingsEnv })
    const { plugins, overrides } = await installationPlugins(settings)
    const secret = readFileSync(join(dataDir, 'secret.key'), 'utf8').trim()
    const panel: Panel = await createPanel({
      store: openPostgresStore({ url: copied }),
      plugins,
      overrides,
      secret,
    })
    try {
      panel.start()
      const onPostgres = async <B>(method: string, path: string, body?: unknown) => {
        const response = await panel.handle(
          new Request(`http://panel.test/api/v1${path}`, {
            method,
            headers: {
              authorization: `Bearer ${token}`,
              ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          }),
        )
        return { status: response.status, body: (await response.json()) as B }
      }

      // The token made with the CLI before the copy (only its hash was copied) still authenticates.
      const me = await onPostgres<{ user: { email: string } }>('GET', '/me')
      expect(me.status).toBe(200)
      expect(me.body.user.email).toBe('staff@example.com')

      // Lists answer the same items in the same pages, and a cursor the SQLite server signed pages on here.
      for (const [path, pages] of before) {
        if (!Array.isArray(pages)) expect(await onPostgres('GET', path)).toEqual({ status: 200, body: pages })
        else expect([path, await pagesOf(onPostgres, path)]).toEqual([path, pages])
      }
      const customerPages = before.get('/customers') as Page<{ id: string }>[]
      expect(customerPages.length).toBeGreaterThan(2)
      const second = await onPostgres<Page<{ id: string }>>(
        'GET',
        `/customers?limit=2&cursor=${encodeURIComponent(customerPages[0]?.nextCursor ?? '')}`,
      )
      expect(second).toEqual({ status: 200, body: customerPages[1] as Page<{ id: string }> })
      const members = await onPostgres<Page<{ userId: string }>>(
        'GET',
        `/customers/${customerIds[0]}/members`,
      )
      expect(members.body.items.map((member) => member.userId)).toEqual([developerId])

      // The endpoint's secret, sealed on SQLite, opens here: after a rotation, a delivery is signed with both the
      // secret shown before the copy and the new one.
      const rotated = await onPostgres<{ secret: string }>('POST', `/webhooks/${webhook.id}/rotate-secret`)
      expect(rotated.status).toBe(200)
      expect(rotated.body.secret).not.toBe(webhook.secret)
      const created = await onPostgres<{ id: string }>('POST', '/customers', { name: 'On PostgreSQL' })
      expect(created.status).toBe(201)
      const delivery = await receiver.waitFor(
        (hook) => hook.json.type === 'customer.created' && hook.json.data.id === created.body.id,
        15_000,
      )
      for (const key of [webhook.secret, rotated.body.secret])
        expect(new StandardWebhook(key).verify(delivery.body, delivery.headers)).toEqual(delivery.json)
    } finally {
      await panel.close()
    }
  })

  test('refuses a target that holds a table, naming it, and writes nothing', async () => {
    const target = await emptyDatabase()
    await inDatabase(target, async (sql) => {
      await sql`create table notes (body text)`
      await sql`insert into notes values ('keep me')`
    })
    const result = await storeCopy(dataDir, '--to', target)
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe(
      `plinth: the target ${target} is not empty: schema public holds 1 table (notes); store copy fills only an empty database or schema, and wrote nothing\n`,
    )
    expect(await schemaObjects(target)).toEqual(['notes'])
    const notes = await inDatabase(target, (sql) => sql<{ body: string }[]>`select body from notes`)
    expect([...notes]).toEqual([{ body: 'keep me' }])
  })

  test('a copy that fails after the migrations puts the target back as it was found', async () => {
    const strayDir = tempDataDir()
    expect((await runCli(strayDir, ['init'], settingsEnv)).exitCode).toBe(0)
    const store = new Database(join(strayDir, 'plinth.sqlite'))
    store.exec('create table stray (note text)')
    store.close()
    const target = await emptyDatabase()
    const intoPublic = await storeCopy(strayDir, '--to', target)
    expect(intoPublic.exitCode).toBe(1)
    expect(intoPublic.stderr).toMatch(
      /^plinth: the copy failed: the SQLite store holds tables no migration of this installation makes: stray .*; nothing was copied, the target was put back as it was found\n$/,
    )
    expect(await schemaObjects(target)).toEqual([])
    // A schema the copy made is dropped again.
    const intoSchema = await storeCopy(strayDir, '--to', target, '--schema', 'plinth')
    expect(intoSchema.exitCode).toBe(1)
    const schemas = await inDatabase(
      target,
      (sql) => sql`select 1 from pg_namespace where nspname = 'plinth'`,
    )
    expect(schemas.length).toBe(0)
  })

  test('an installation on PLINTH_SECRET is told to carry PLINTH_SECRET over, and its check of it is copied', async () => {
    const secretDir = tempDataDir()
    const withSecret = { ...settingsEnv, PLINTH_SECRET: 'a-secret-the-operator-keeps-in-a-vault-0123' }
    expect((await runCli(secretDir, ['init'], withSecret)).exitCode).toBe(0)
    const target = await emptyDatabase()
    const result = await runCli(secretDir, ['store', 'copy', '--to', target], withSecret)
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain(
      'The secret is PLINTH_SECRET: set the same PLINTH_SECRET on every instance that uses this database.',
    )
    expect(result.stdout).not.toContain(withSecret.PLINTH_SECRET)
    const store = new Database(join(secretDir, 'plinth.sqlite'), { readonly: true })
    const inSqlite = store
      .query<{ key: string; value: string }, []>('select key, value from installation')
      .all()
    store.close()
    const inPostgres = await inDatabase(
      target,
      (sql) => sql<{ key: string; value: string }[]>`select key, value from installation`,
    )
    expect([...inPostgres]).toEqual(inSqlite)
    // Another secret is refused before anything is copied, as at any start.
    const other = await emptyDatabase()
    const refused = await runCli(secretDir, ['store', 'copy', '--to', other], {
      ...withSecret,
      PLINTH_SECRET: 'not-the-secret-this-installation-was-made-with',
    })
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr).toStartWith('plinth: The secret is not the one this installation was made with')
    expect(await schemaObjects(other)).toEqual([])
  })

  test('refuses a DATA_DIR without an installation before touching the target', async () => {
    const target = await emptyDatabase()
    const empty = tempDataDir()
    const result = await storeCopy(empty, '--to', target)
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toBe(
      `plinth: DATA_DIR: no Plinth installation in ${empty} (no plinth.sqlite there); start the server once with this DATA_DIR, or run \`npm run panel -- init\`\n`,
    )
    expect(await schemaObjects(target)).toEqual([])
  })

  test('a missing or malformed target is a usage error on one line, exit 2', async () => {
    const cases: [string[], string][] = [
      [[], 'plinth: --to is required: the PostgreSQL database to copy into'],
      [
        ['--to', 'mysql://db.example.com/plinth'],
        'plinth: --to must start with postgres:// or postgresql://',
      ],
      [['--to', 'postgres://db.example.com'], 'plinth: --to names no database'],
      [['--to', 'postgres://db.example.com/x', '--schema', 'Bad-Name'], 'plinth: --schema must be'],
    ]
    for (const [args, message] of cases) {
      const result = await storeCopy(dataDir, ...args)
      expect([args, result.exitCode]).toEqual([args, 2])
      expect(result.stderr.startsWith(message)).toBe(true)
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1)
    }
  })

  test('help store and store copy --help explain the command', async () => {
    const listed = await runCli(dataDir, ['help'])
    expect(listed.stdout).toContain('store copy --to postgres://… [--schema NAME]')
    for (const args of [
      ['help', 'store'],
      ['store', 'copy', '--help'],
    ]) {
      const help = await runCli(dataDir, args)
      expect(help.exitCode).toBe(0)
      expect(help.stdout).toStartWith('Usage: npm run panel -- store copy --to postgres://… [--schema NAME]')
      expect(help.stdout).toContain('one read transaction')
      expect(help.stdout).toContain('DATA_DIR/secret.key or PLINTH_SECRET')
    }
  })
})
