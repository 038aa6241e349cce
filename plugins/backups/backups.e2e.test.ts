// Backups through the API on a real WordPress site served by this machine's nginx, PHP-FPM and MariaDB through the
// panel's local node, into the default target (each site's own node): a backup taken and verified (its event, idempotent replay), a file and a
// post changed, then restored files only, databases only and everything, each giving back exactly the backup's
// state; a restore undone with its pre-restore backup; a download link streaming a valid .tar.gz once; a failing
// dump and a corrupted repository each making a `failed` backup with its code and event; another customer's token 404 and the billing role
// 403. Node side (restic, nginx, MariaDB): run once, not in both store halves.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chownSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Connection, RowDataPacket } from 'mysql2/promise'
import { definePlugin } from '../../core/index.ts'
import {
  createTestUser,
  expectProblem,
  startWordPressPanel,
  type TestPanel,
  type WordPressPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import { siteTypes } from '../sites/contract.ts'
import type { Backup } from './contract.ts'
import type { BackupTables } from './migrations.ts'

const tag = crypto.randomUUID().slice(0, 8)
const domain = `bk-${tag}.example.test`

let wp: WordPressPanel
let tp: TestPanel
let token: string
let otherToken: string
let billingToken: string
let root: Connection
let siteId = ''
let customerId = ''
let databaseName = ''

/** Plain static sites beside WordPress: a type no restore adapter knows. */
const staticSites = () =>
  definePlugin({
    name: 'static-sites',
    version: '1.0.0',
    description: 'Static sites, for the tests.',
    requires: ['sites'],
    setup(context) {
      context.extensionPoint(siteTypes).add({ name: 'plain', description: 'Plain files.' })
    },
  })

interface Answer<T> {
  readonly status: number
  readonly body: T
  readonly response: Response
}
async function call<T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
  options: { as?: string; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const response = await tp.request(method, `/api/v1${path}`, {
    token: options.as ?? token,
    body,
    ...(options.headers ? { headers: options.headers } : {}),
  })
  const text = await response.clone().text()
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T, response }
}

interface Job {
  status: string
  error: { code: string; message: string } | null
  result: Record<string, unknown> | null
}
async function finished(jobId: string): Promise<Job> {
  return waitFor(
    `job ${jobId}`,
    async () => {
      const job = (await call<Job>('GET', `/jobs/${jobId}`)).body
      if (job.status === 'succeeded' || job.status === 'failed') return job
      await Bun.sleep(100)
      return null
    },
    300_000,
  )
}

/** Takes a backup of the site and waits for it; answers it as the API then shows it. */
async function backUp(expected: 'completed' | 'failed' = 'completed'): Promise<Backup> {
  const started = await call<{ jobId: string; backup: Backup }>('POST', `/sites/${siteId}/backups`)
  expect(started.status).toBe(202)
  expect(started.body.backup.status).toBe('running')
  const job = await finished(started.body.jobId)
  expect(job.status).toBe(expected === 'completed' ? 'succeeded' : 'failed')
  const read = await call<Backup>('GET', `/sites/${siteId}/backups/${started.body.backup.id}`)
  expect(read.body.status).toBe(expected)
  return read.body
}

/** Restores `backupId` with `body` and waits; answers the job's result. */
async function restore(backupId: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const started = await call<{ jobId: string; preRestoreBackupId: string | null }>(
    'POST',
    `/sites/${siteId}/backups/${backupId}/restore`,
    body,
  )
  expect(started.status).toBe(202)
  const job = await finished(started.body.jobId)
  expect(job.error).toBeNull()
  expect(job.status).toBe('succeeded')
  expect(job.result?.preRestoreBackupId).toBe(started.body.preRestoreBackupId)
  return job.result ?? {}
}

const htdocs = () => join(wp.sitesDir, 'sites', siteId, 'htdocs')
/** Writes a file of the site as its user would have (the files API, SFTP). */
function writeSiteFile(name: string, content: string): void {
  const path = join(htdocs(), name)
  writeFileSync(path, content)
  const owner = statSync(htdocs())
  chownSync(path, owner.uid, owner.gid)
}
const readSiteFile = (name: string) =>
  existsSync(join(htdocs(), name)) ? readFileSync(join(htdocs(), name), 'utf8') : null

/** The titles of the site's published posts. */
async function postTitles(): Promise<string[]> {
  const [rows] = await root.query<RowDataPacket[]>(
    `SELECT post_title FROM \`${databaseName}\`.wp_posts WHERE post_type = 'post' AND post_status = 'publish'`,
  )
  return rows.map((row) => String(row.post_title)).sort()
}
async function addPost(title: string): Promise<void> {
  await root.query(
    `INSERT INTO \`${databaseName}\`.wp_posts (post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt, post_status, post_name, to_ping, pinged, post_modified, post_modified_gmt, post_content_filtered, post_type) VALUES (1, NOW(), NOW(), 'x', ?, '', 'publish', ?, '', '', NOW(), NOW(), '', 'post')`,
    [title, title.toLowerCase().replaceAll(' ', '-')],
  )
}

/** Events of `kind` in the outbox about backup `id`. */
async function eventsAbout(kind: string, id: string): Promise<Record<string, unknown>[]> {
  const rows = await tp.panel.store.db
    .withTables<{ event_outbox: { kind: string; payload: string } }>()
    .selectFrom('event_outbox')
    .selectAll()
    .where('kind', '=', kind)
    .execute()
  return rows
    .map((row) => JSON.parse(row.payload) as Record<string, unknown>)
    .filter((data) => data.id === id)
}

beforeAll(async () => {
  wp = await startWordPressPanel({ prefix: 'plinth-backups-', tag, plugins: [staticSites()] })
  ;({ tp, token, root } = wp)
  // A fresh installation backs up to each site's own node: the default target, nothing to add.
  const targets = await call<{ items: { kind: string; default: boolean }[] }>('GET', '/backup-targets')
  expect(targets.body.items).toEqual([expect.objectContaining({ kind: 'local', default: true })])
  const acme = await call<{ id: string }>('POST', '/customers', { name: 'Acme' })
  customerId = acme.body.id
  const other = await call<{ id: string }>('POST', '/customers', { name: 'Other' })
  otherToken = await tp.token({ customerId: other.body.id })
  const member = await createTestUser(tp.panel.store.db, {
    email: `billing-${tag}@acme.test`,
    staffRole: null,
  })
  const added = await call('POST', `/customers/${acme.body.id}/members`, {
    email: member.email,
    role: 'billing',
  })
  expect(added.status).toBe(201)
  billingToken = await tp.token({ user: member })
  ;({ siteId, databaseName } = await wp.newWordPressSite(acme.body.id, 'Acme Blog', domain))
}, 300_000)

afterAll(async () => {
  await wp?.close()
})

describe('a WordPress site’s backups', () => {
  let first: Backup

  test('a backup is taken and verified: its contents, figures and event; an Idempotency-Key replays it', async () => {
    writeSiteFile('kept.txt', 'as backed up\n')
    await addPost(`Backed up ${tag}`)
    const key = `bk-${tag}`
    const started = await call<{ jobId: string; backup: Backup }>(
      'POST',
      `/sites/${siteId}/backups`,
      undefined,
      {
        headers: { 'idempotency-key': key },
      },
    )
    expect(started.status).toBe(202)
    const replayed = await call<{ jobId: string; backup: Backup }>(
      'POST',
      `/sites/${siteId}/backups`,
      undefined,
      {
        headers: { 'idempotency-key': key },
      },
    )
    expect(replayed.status).toBe(202)
    expect(replayed.response.headers.get('idempotent-replayed')).toBe('true')
    expect(replayed.body).toEqual(started.body)
    // A second backup while it runs is refused; it is neither restored nor downloaded before it completed.
    await expectProblem((await call('POST', `/sites/${siteId}/backups`)).response, 409, 'backup_in_progress')
    const running = started.body.backup.id
    await expectProblem(
      (await call('POST', `/sites/${siteId}/backups/${running}/restore`, { files: true })).response,
      409,
      'backup_not_completed',
    )
    await expectProblem(
      (await call('POST', `/sites/${siteId}/backups/${running}/download`)).response,
      409,
      'backup_not_completed',
    )
    expect((await finished(started.body.jobId)).status).toBe('succeeded')
    first = (await call<Backup>('GET', `/sites/${siteId}/backups/${started.body.backup.id}`)).body
    expect(first).toMatchObject({ status: 'completed', verified: true, reason: 'manual', error: null })
    expect(first.sizeBytes).toBeGreaterThan(0)
    expect(first.contents?.files?.count).toBeGreaterThan(100)
    expect(first.contents?.databases).toEqual([
      expect.objectContaining({ name: databaseName, engine: 'mariadb', tables: expect.any(Number) }),
    ])
    expect(first.contents?.databases[0]?.tables).toBeGreaterThan(5)
    expect(await eventsAbout('backup.completed', first.id)).toEqual([
      expect.objectContaining({ id: first.id, status: 'completed' }),
    ])
    const list = await call<{ items: Backup[] }>('GET', `/sites/${siteId}/backups`)
    expect(list.body.items.map((backup) => backup.id)).toContain(first.id)
  }, 300_000)

  test('files only: the files are the backup’s again, the databases are left', async () => {
    writeSiteFile('kept.txt', 'changed\n')
    writeSiteFile('added.txt', 'made after the backup\n')
    await addPost(`Written later ${tag}`)
    await restore(first.id, { files: true })
    expect(readSiteFile('kept.txt')).toBe('as backed up\n')
    expect(readSiteFile('added.txt')).toBeNull()
    expect(await postTitles()).toContain(`Written later ${tag}`)
  }, 300_000)

  test('databases only: the posts are the backup’s again, the files are left', async () => {
    writeSiteFile('added.txt', 'made after the backup\n')
    await restore(first.id, { databases: true })
    const titles = await postTitles()
    expect(titles).toContain(`Backed up ${tag}`)
    expect(titles).not.toContain(`Written later ${tag}`)
    expect(readSiteFile('added.txt')).toBe('made after the backup\n')
  }, 300_000)

  test('everything, then undone with one call: its pre-restore backup', async () => {
    writeSiteFile('kept.txt', 'changed again\n')
    await addPost(`Undone later ${tag}`)
    const result = await restore(first.id, { files: true, databases: true })
    expect(readSiteFile('kept.txt')).toBe('as backed up\n')
    expect(readSiteFile('added.txt')).toBeNull()
    expect(await postTitles()).not.toContain(`Undone later ${tag}`)
    const undo = result.undo as { method: string; path: string; body: Record<string, unknown> }
    expect(undo.path).toBe(`/api/v1/sites/${siteId}/backups/${result.preRestoreBackupId}/restore`)
    const preRestore = await call<Backup>('GET', `/sites/${siteId}/backups/${result.preRestoreBackupId}`)
    expect(preRestore.body).toMatchObject({ reason: 'pre-restore', status: 'completed', verified: true })
    await restore(String(result.preRestoreBackupId), undo.body)
    expect(readSiteFile('kept.txt')).toBe('changed again\n')
    expect(readSiteFile('added.txt')).toBe('made after the backup\n')
    expect(await postTitles()).toContain(`Undone later ${tag}`)
  }, 600_000)

  test('a download link streams the backup as a valid .tar.gz, once', async () => {
    const link = await call<{ url: string; expiresAt: string }>(
      'POST',
      `/sites/${siteId}/backups/${first.id}/download`,
    )
    expect(link.status).toBe(201)
    const url = new URL(link.body.url)
    const path = `${url.pathname}${url.search}`
    const download = await tp.request('GET', path)
    expect(download.status).toBe(200)
    expect(download.headers.get('content-disposition')).toBe(
      `attachment; filename="${domain}-${first.id}.tar.gz"`,
    )
    const archive = join(wp.folder, `${first.id}.tar.gz`)
    writeFileSync(archive, new Uint8Array(await download.arrayBuffer()))
    const listing = Bun.spawnSync(['tar', '-tzf', archive])
    expect(listing.exitCode).toBe(0)
    const names = listing.stdout.toString()
    expect(names).toContain('kept.txt')
    expect(names).toMatch(/\.sql/)
    // The panel's record of the site is in it, with what other plugins hold of the site (no secret).
    const recordName = names.split('\n').find((name) => name.endsWith('record.json')) ?? 'record.json'
    const record = JSON.parse(Bun.spawnSync(['tar', '-xzOf', archive, recordName]).stdout.toString())
    expect(record).toMatchObject({ site: { id: siteId, domain }, sftpAccounts: [], certificate: null })
    await expectProblem(await tp.request('GET', path), 410, 'download_link_used')
    await expectProblem(
      await tp.request('GET', `/api/v1/backup-downloads?token=${'A'.repeat(43)}`),
      404,
      'download_link_invalid',
    )
  }, 300_000)

  test('into a new site: a WordPress clone of the backup, with its own wp-config.php and the new domain', async () => {
    const cloneDomain = `copy-${tag}.example.test`
    const started = await call<{ jobId: string; siteId: string; preRestoreBackupId: string | null }>(
      'POST',
      `/sites/${siteId}/backups/${first.id}/restore`,
      { files: true, databases: true, into: { newSite: { domain: cloneDomain } } },
    )
    expect(started.status).toBe(202)
    expect(started.body.preRestoreBackupId).toBeNull()
    expect(started.body.siteId).not.toBe(siteId)
    const job = await finished(started.body.jobId)
    expect(job.error).toBeNull()
    const clone = await call<{ status: string; type: string; domain: string }>(
      'GET',
      `/sites/${started.body.siteId}`,
    )
    expect(clone.body).toMatchObject({ status: 'active', type: 'wordpress', domain: cloneDomain })
    const cloneHtdocs = join(wp.sitesDir, 'sites', started.body.siteId, 'htdocs')
    expect(readFileSync(join(cloneHtdocs, 'kept.txt'), 'utf8')).toBe('as backed up\n')
    // Its own wp-config.php names its own database, not the first site's.
    expect(readFileSync(join(cloneHtdocs, 'wp-config.php'), 'utf8')).not.toContain(`'${databaseName}'`)
    const front = await fetch(`http://127.0.0.1:${wp.httpPort}/`, {
      headers: { host: cloneDomain },
      redirect: 'manual',
    })
    expect(front.status).toBe(200)
    const page = await front.text()
    expect(page).toContain(`Backed up ${tag}`)
    expect(page).not.toContain(`//${domain}`)
  }, 600_000)

  test('a site type without a restore adapter cannot be cloned: 422 clone_type_unsupported', async () => {
    const plain = await call<{ id: string; jobId: string }>('POST', '/sites', {
      customerId,
      name: 'Plain',
      type: 'plain',
      domain: `plain-${tag}.example.test`,
    })
    expect(plain.status).toBe(201)
    expect((await finished(plain.body.jobId)).status).toBe('succeeded')
    const started = await call<{ jobId: string; backup: Backup }>('POST', `/sites/${plain.body.id}/backups`)
    expect(started.status).toBe(202)
    await expectProblem(
      (
        await call('POST', `/sites/${plain.body.id}/backups/${started.body.backup.id}/restore`, {
          files: true,
          into: { newSite: { domain: `plain-copy-${tag}.example.test` } },
        })
      ).response,
      422,
      'clone_type_unsupported',
    )
    expect((await finished(started.body.jobId)).status).toBe('succeeded')
  }, 300_000)

  test('refusals: nothing chosen, a database the backup lacks, another customer’s token, the billing role', async () => {
    await expectProblem(
      (await call('POST', `/sites/${siteId}/backups/${first.id}/restore`, {})).response,
      422,
      'nothing_to_restore',
    )
    await expectProblem(
      (
        await call('POST', `/sites/${siteId}/backups/${first.id}/restore`, {
          databases: ['db_01JDQ3V6Y4T1ZK0M2N5P7R9SAA'],
        })
      ).response,
      422,
      'not_in_backup',
    )
    await expectProblem(
      (await call('POST', `/sites/${siteId}/backups/${first.id}/restore`, { files: ['/htdocs/../etc'] }))
        .response,
      422,
      'invalid_restore_path',
    )
    for (const [method, path] of [
      ['GET', `/sites/${siteId}/backups`],
      ['GET', `/sites/${siteId}/backups/${first.id}`],
      ['POST', `/sites/${siteId}/backups`],
      ['POST', `/sites/${siteId}/backups/${first.id}/restore`],
      ['POST', `/sites/${siteId}/backups/${first.id}/download`],
    ] as const) {
      const body = path.endsWith('/restore') ? { files: true } : undefined
      await expectProblem((await call(method, path, body, { as: otherToken })).response, 404, 'not_found')
      const refused = await call(method, path, body, { as: billingToken })
      expect(refused.status).toBe(403)
    }
  }, 60_000)

  test('a database dump that fails makes a failed backup with dump_failed, never a completed one', async () => {
    // A view over a table since dropped: mariadb-dump refuses to dump it.
    await root.query(`CREATE TABLE \`${databaseName}\`.plinth_gone (id INT)`)
    await root.query(
      `CREATE VIEW \`${databaseName}\`.plinth_broken AS SELECT id FROM \`${databaseName}\`.plinth_gone`,
    )
    await root.query(`DROP TABLE \`${databaseName}\`.plinth_gone`)
    try {
      const failed = await backUp('failed')
      expect(failed).toMatchObject({ verified: false, contents: null, error: { code: 'dump_failed' } })
      expect(await eventsAbout('backup.failed', failed.id)).toEqual([
        expect.objectContaining({ id: failed.id, error: failed.error }),
      ])
    } finally {
      await root.query(`DROP VIEW IF EXISTS \`${databaseName}\`.plinth_broken`)
    }
  }, 300_000)

  test('a database server that refuses the panel fails the backup without naming its administrator', async () => {
    // Staff's administrator login for the server gone wrong: the lease cannot be made.
    const servers = tp.panel.store.db.withTables<{
      database_servers: { id: string; username: string }
      databases: { server_id: string; site_id: string | null }
    }>()
    const server = await servers
      .selectFrom('database_servers')
      .innerJoin('databases', 'databases.server_id', 'database_servers.id')
      .select(['database_servers.id as id', 'database_servers.username as username'])
      .where('databases.site_id', '=', siteId)
      .executeTakeFirstOrThrow()
    const wrongAdmin = `plinth_gone_admin_${tag}`.slice(0, 32)
    await servers
      .updateTable('database_servers')
      .set({ username: wrongAdmin })
      .where('id', '=', server.id)
      .execute()
    try {
      const failed = await backUp('failed')
      expect(failed.error?.code).toBe('dump_failed')
      for (const said of [
        failed.error?.message ?? '',
        JSON.stringify(await eventsAbout('backup.failed', failed.id)),
      ])
        expect(said).not.toContain(wrongAdmin)
    } finally {
      await servers
        .updateTable('database_servers')
        .set({ username: server.username })
        .where('id', '=', server.id)
        .execute()
    }
  }, 300_000)

  test('a corrupted repository makes a failed backup with its code and backup.failed', async () => {
    // A backup never downloaded yet (a node keeps an archive it made for a while).
    const listed = await call<{ items: Backup[] }>('GET', `/sites/${siteId}/backups?limit=100`)
    const other = listed.body.items.find(
      (backup) => backup.reason === 'pre-restore' && backup.status === 'completed',
    )
    const link = await call<{ url: string }>('POST', `/sites/${siteId}/backups/${other?.id}/download`)
    expect(link.status).toBe(201)
    const repositories = findFolders(wp.sitesDir, 'repositories')
    expect(repositories.length).toBe(1)
    // The site's own repository, named by its id (the static site's and the clone's are beside it).
    const repository = join(repositories[0] ?? '', siteId)
    expect(existsSync(join(repository, 'config'))).toBe(true)
    // Its snapshots removed behind the panel's back: the archive cannot be made, and the link says why at once.
    for (const file of readdirSync(join(repository, 'snapshots'))) rmSync(join(repository, 'snapshots', file))
    const url = new URL(link.body.url)
    await expectProblem(await tp.request('GET', `${url.pathname}${url.search}`), 502, 'download_failed')
    // Its data damaged in place (bits flipped, sizes kept, as a failing disk does): restic's check after the next
    // backup finds it, and the backup is never completed. (Packs lost or cut short are found too, after minutes of
    // restic's retries.)
    const dataDir = join(repository, 'data')
    for (const sub of readdirSync(dataDir))
      for (const file of readdirSync(join(dataDir, sub))) {
        const pack = join(dataDir, sub, file)
        const bytes = readFileSync(pack)
        for (let at = 16; at < bytes.length - 16; at += 97) bytes[at] = (bytes[at] ?? 0) ^ 0xff
        writeFileSync(pack, bytes)
      }
    const failed = await backUp('failed')
    expect(failed.verified).toBe(false)
    expect(failed.error?.code).toBe('repository_corrupt')
    expect(await eventsAbout('backup.failed', failed.id)).toEqual([
      expect.objectContaining({ id: failed.id, status: 'failed', error: failed.error }),
    ])
  }, 300_000)

  test('a deleted site’s backups go with it: its backups, its repository’s row, and its folder on the node', async () => {
    const repository = join(findFolders(wp.sitesDir, 'repositories')[0] ?? '', siteId)
    expect(existsSync(repository)).toBe(true)
    const deleted = await call<{ jobId: string }>('DELETE', `/sites/${siteId}`)
    expect(deleted.status).toBe(202)
    expect((await finished(deleted.body.jobId)).status).toBe('succeeded')
    const tables = tp.panel.store.db.withTables<BackupTables>()
    expect(await tables.selectFrom('backups').selectAll().where('site_id', '=', siteId).execute()).toEqual([])
    // The purge job asks the node (which no longer holds the site) to remove the repository, then the row goes.
    await waitFor(
      'the repository’s row to go',
      async () =>
        (await tables.selectFrom('backup_repositories').selectAll().where('site_id', '=', siteId).execute())
          .length === 0 || null,
      60_000,
    )
    expect(existsSync(repository)).toBe(false)
  }, 300_000)
})

/** Folders named `name` below `under`. */
function findFolders(under: string, name: string): string[] {
  const found: string[] = []
  const walk = (dir: string, depth: number) => {
    if (depth > 6) return
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue
      const path = join(dir, entry.name)
      if (entry.name === name) found.push(path)
      else if (entry.name !== 'sites') walk(path, depth + 1)
    }
  }
  walk(under, 0)
  return found
}
