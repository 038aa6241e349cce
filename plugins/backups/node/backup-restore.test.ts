// Backups and restores of a real site served by a node (its Unix user, its disk image), with a real MariaDB and a
// real PostgreSQL database, to a local restic repository: the backup's figures and checks, restores of the files,
// of one path, of the databases, `keep` honoured, a site's link out of it never followed, a clone into another site,
// the archive of a snapshot, and forgetting snapshots.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import type { BackupTask, RunOutcome } from './protocol.ts'
import {
  type BackupNode,
  contentsOf,
  mariadbDatabase,
  postgresDatabase,
  sh,
  startBackupNode,
  type TestDatabase,
  type TestSite,
} from './testing/backup-node.ts'

let peer: BackupNode
let site: TestSite
let siteId: string
let maria: TestDatabase
let pg: TestDatabase
const repositoryName = `bk-${crypto.randomUUID().slice(0, 8)}`
const repository = {
  location: { kind: 'local' as const, name: repositoryName },
  password: `pw-${crypto.randomUUID()}`,
}
let first: Extract<RunOutcome, { ok: true; task: 'backup' }>
let before: Record<string, string>
/** A folder of root's the site's user may pass through but not write (as another site's or the node's would be). */
let outside: string

/** The site's files as a restore compares them (the restore's own folder is never left behind). */
const htdocsOf = (target: TestSite = site) => contentsOf(target.htdocs)

function backup(overrides: Partial<Extract<BackupTask, { task: 'backup' }>> = {}): BackupTask {
  return {
    task: 'backup',
    backupId: `bkp_${crypto.randomUUID().replaceAll('-', '').slice(0, 20)}`,
    repository,
    files: true,
    databases: [maria, pg].map((db) => ({
      databaseId: db.databaseId,
      login: db.reader,
      scratch: db.scratch,
    })),
    record: { type: 'static', domain: 'shop.example.com' },
    verify: { readDataPercent: 100, sampleFiles: 5 },
    ...overrides,
  }
}

function restore(overrides: Partial<Extract<BackupTask, { task: 'restore' }>> = {}): BackupTask {
  return {
    task: 'restore',
    repository,
    snapshotId: first.snapshotId,
    files: false,
    keep: [],
    databases: [],
    ...overrides,
  }
}

function ok(outcome: RunOutcome): Extract<RunOutcome, { ok: true }> {
  if (!outcome.ok) throw new Error(`the run failed: ${outcome.code}: ${outcome.message}`)
  return outcome
}

beforeAll(async () => {
  peer = await startBackupNode('plinth-backups-')
  const made = await peer.provision('a')
  site = made.site
  siteId = made.spec.id
  maria = mariadbDatabase('a')
  pg = postgresDatabase('a')
  // A WordPress tree (Debian's, its links to /etc/wordpress kept as links), a config, folders of the site's own.
  sh(`cp -a /usr/share/wordpress "${site.htdocs}/wp"`)
  writeFileSync(join(site.htdocs, 'wp-config.php'), "<?php define('DB_NAME', 'a');\n")
  mkdirSync(join(site.htdocs, 'sub'))
  writeFileSync(join(site.htdocs, 'sub', 'b.txt'), 'b as it was\n')
  mkdirSync(join(site.htdocs, 'evil'))
  writeFileSync(join(site.htdocs, 'evil', 'inner.txt'), 'inner as it was\n')
  writeFileSync(join(site.home, 'tmp', 'session'), 'not backed up\n')
  // As the site's own writes leave them: its user's, with the documents' group (set-group-id folders).
  sh(
    `chown -R ${site.user.uid}:${statSync(site.htdocs).gid} "${site.htdocs}" && chown -R ${site.user.uid} "${site.home}/tmp"`,
  )
  sh(`find "${site.htdocs}" -type d -exec chmod g+s {} +`)
  outside = join(peer.dataDir, 'outside')
  mkdirSync(outside, { recursive: true, mode: 0o755 })
  writeFileSync(join(outside, 'inner.txt'), 'outside, root’s\n')
}, 60_000)

afterAll(async () => {
  await peer?.close()
  maria?.drop()
  pg?.drop()
})

describe('backups of a served site to a local repository', () => {
  test('a backup of the site’s files and two databases is verified and answers its figures', async () => {
    const { outcome, steps, timeline, ms } = await peer.run(siteId, backup())
    first = ok(outcome) as typeof first
    before = htdocsOf()
    console.info(
      `backup of a WordPress-sized site (${first.files?.count} files, ${first.sizeBytes} bytes) and two databases: ${ms} ms; steps first seen at ${JSON.stringify(timeline)}`,
    )
    expect(first.task).toBe('backup')
    expect(first.snapshotId).toMatch(/^[0-9a-f]{64}$/)
    const regular = Object.values(
      contentsOf(site.home, (path) => ['/tmp', '/state.json', '/.plinth-room'].includes(path)),
    ).filter((value) => value !== 'dir' && !value.startsWith('link:')).length
    expect(first.files?.count).toBe(regular)
    expect(first.sizeBytes).toBeGreaterThan(first.files?.bytes ?? 0)
    expect(first.storedBytes).toBeGreaterThan(0)
    expect(first.repositoryBytes).toBeGreaterThanOrEqual(first.storedBytes)
    expect(first.databases).toEqual([
      { databaseId: maria.databaseId, bytes: expect.any(Number), tables: 3, restoredTables: 3 },
      { databaseId: pg.databaseId, bytes: expect.any(Number), tables: 3, restoredTables: 3 },
    ])
    expect(first.checks.repository.readDataPercent).toBe(100)
    expect(first.checks.files.sampled).toBeGreaterThan(0)
    expect(first.checks.files.matched).toBe(first.checks.files.sampled)
    expect(steps).toContain('uploading')
    expect(steps.some((step) => step.startsWith('dumping'))).toBe(true)
    // The repository is root's alone; no dump, scratch copy nor key is left behind.
    const repo = join(peer.serviceDir, 'repositories', repositoryName)
    expect(statSync(repo).mode & 0o077).toBe(0)
    for (const dir of ['staging', 'scratch', 'keys'])
      expect(readdirSync(join(peer.serviceDir, dir))).toEqual([])
    // One snapshot, tagged with the backup's id, holding the record, both dumps and the home but its tmp/ and state.
    const env = {
      RESTIC_REPOSITORY: repo,
      RESTIC_PASSWORD: repository.password,
      RESTIC_CACHE_DIR: join(peer.serviceDir, 'cache'),
    }
    const listed = sh(`restic ls --json ${first.snapshotId}`, env)
    expect(listed).toContain('"name":"record.json"')
    expect(listed).toContain(`"name":"${maria.databaseId}.sql"`)
    expect(listed).toContain(`"name":"${pg.databaseId}.sql"`)
    expect(listed).toContain('"name":"wp-config.php"')
    expect(listed).not.toContain('"name":"session"')
    expect(listed).not.toContain('"name":"state.json"')
  }, 180_000)

  test('restoring the files makes them exactly the backup’s, owned by the site, and leaves the databases', async () => {
    writeFileSync(join(site.htdocs, 'added.php'), '<?php // added after the backup\n')
    writeFileSync(join(site.htdocs, 'sub', 'b.txt'), 'b changed\n')
    rmSync(join(site.htdocs, 'wp', 'index.php'))
    maria.sql(`INSERT INTO posts VALUES (4, 'later')`)
    const { outcome } = await peer.run(siteId, restore({ files: true }))
    const restored = ok(outcome)
    expect(restored).toEqual({ ok: true, task: 'restore', files: expect.any(Number), databases: [] })
    expect(htdocsOf()).toEqual(before)
    const file = statSync(join(site.htdocs, 'wp', 'index.php'))
    expect(file.uid).toBe(site.user.uid)
    // The documents keep the group nginx's workers read them with.
    expect(file.gid).toBe(statSync(site.htdocs).gid)
    expect(maria.rows()).toContain('4:later')
    expect(readdirSync(site.home).filter((name) => name.startsWith('.plinth-restore'))).toEqual([])
  }, 120_000)

  test('restoring one path leaves the rest of the site as it is', async () => {
    writeFileSync(join(site.htdocs, 'sub', 'b.txt'), 'b changed again\n')
    writeFileSync(join(site.htdocs, 'sub', 'new.txt'), 'new\n')
    writeFileSync(join(site.htdocs, 'evil', 'inner.txt'), 'inner changed\n')
    const { outcome } = await peer.run(siteId, restore({ files: ['/htdocs/sub'] }))
    expect(ok(outcome)).toMatchObject({ files: 1 })
    expect(readFileSync(join(site.htdocs, 'sub', 'b.txt'), 'utf8')).toBe('b as it was\n')
    expect(existsSync(join(site.htdocs, 'sub', 'new.txt'))).toBe(false)
    expect(readFileSync(join(site.htdocs, 'evil', 'inner.txt'), 'utf8')).toBe('inner changed\n')
  }, 120_000)

  test('a listed path the backup lacks fails the restore before anything changed (a typo deletes nothing)', async () => {
    mkdirSync(join(site.htdocs, 'made-later'), { recursive: true })
    writeFileSync(join(site.htdocs, 'made-later', 'keep.txt'), 'made after the backup\n')
    writeFileSync(join(site.htdocs, 'sub', 'b.txt'), 'b changed once more\n')
    const { outcome } = await peer.run(siteId, restore({ files: ['/htdocs/sub', '/htdocs/made-later'] }))
    expect(outcome).toMatchObject({ ok: false, code: 'not_in_backup' })
    expect(readFileSync(join(site.htdocs, 'made-later', 'keep.txt'), 'utf8')).toBe('made after the backup\n')
    expect(readFileSync(join(site.htdocs, 'sub', 'b.txt'), 'utf8')).toBe('b changed once more\n')
    // As the test before left them, for the tests after.
    rmSync(join(site.htdocs, 'made-later'), { recursive: true, force: true })
    writeFileSync(join(site.htdocs, 'sub', 'b.txt'), 'b as it was\n')
  }, 120_000)

  test('restoring the databases makes each exactly its dump, and leaves the files', async () => {
    maria.sql(
      `DROP VIEW titles; DROP TABLE options; CREATE TABLE junk (a INT); UPDATE posts SET title = 'defaced'`,
    )
    pg.sql(
      `DROP VIEW titles; DROP TABLE options; CREATE TABLE junk (a INT); INSERT INTO posts VALUES (9, 'later')`,
    )
    const { outcome } = await peer.run(
      siteId,
      restore({ databases: [maria, pg].map((db) => ({ databaseId: db.databaseId, into: db.writer })) }),
    )
    expect(ok(outcome)).toEqual({
      ok: true,
      task: 'restore',
      files: 0,
      databases: [maria.databaseId, pg.databaseId],
    })
    for (const db of [maria, pg]) {
      expect(db.rows()).toEqual(['1:hello', '2:world', '3:again'])
      expect(
        db.sql(
          db.engine === 'mariadb'
            ? 'SHOW TABLES'
            : `SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`,
        ),
      ).not.toContain('junk')
      expect(db.sql('SELECT count(*) FROM titles').trim()).toBe('3')
    }
    expect(readFileSync(join(site.htdocs, 'evil', 'inner.txt'), 'utf8')).toBe('inner changed\n')
  }, 120_000)

  test('a kept path stays as the site has it while everything else is restored', async () => {
    writeFileSync(join(site.htdocs, 'wp-config.php'), "<?php define('DB_NAME', 'kept');\n")
    const { outcome } = await peer.run(siteId, restore({ files: true, keep: ['/htdocs/wp-config.php'] }))
    ok(outcome)
    expect(readFileSync(join(site.htdocs, 'wp-config.php'), 'utf8')).toContain('kept')
    expect(readFileSync(join(site.htdocs, 'evil', 'inner.txt'), 'utf8')).toBe('inner as it was\n')
    writeFileSync(join(site.htdocs, 'wp-config.php'), "<?php define('DB_NAME', 'a');\n")
    sh(`chown ${site.user.uid} "${site.htdocs}/wp-config.php"`)
  }, 120_000)

  test('a link the site made to a folder outside it is replaced, never written through', async () => {
    rmSync(join(site.htdocs, 'evil'), { recursive: true })
    symlinkSync(outside, join(site.htdocs, 'evil'))
    sh(`chown -h ${site.user.uid} "${site.htdocs}/evil"`)
    rmSync(join(site.htdocs, 'sub'), { recursive: true })
    symlinkSync(outside, join(site.htdocs, 'sub'))
    sh(`chown -h ${site.user.uid} "${site.htdocs}/sub"`)
    const { outcome } = await peer.run(siteId, restore({ files: ['/htdocs/evil', '/htdocs/sub/b.txt'] }))
    // /htdocs/sub/b.txt lies beyond the site's link: the site's user may not write there, and the restore fails.
    expect(outcome).toMatchObject({ ok: false, code: 'restore_failed' })
    expect(readdirSync(outside)).toEqual(['inner.txt'])
    expect(readFileSync(join(outside, 'inner.txt'), 'utf8')).toBe('outside, root’s\n')
    const { outcome: whole } = await peer.run(siteId, restore({ files: true }))
    ok(whole)
    expect(readdirSync(outside)).toEqual(['inner.txt'])
    expect(readFileSync(join(outside, 'inner.txt'), 'utf8')).toBe('outside, root’s\n')
    expect(htdocsOf()).toEqual(before)
  }, 120_000)

  test('a clone restores into another site: its own home and user, its own database', async () => {
    const clone = await peer.provision('b')
    const target = mariadbDatabase('b')
    try {
      target.sql('DROP TABLE posts; DROP VIEW titles; DROP TABLE options')
      writeFileSync(join(clone.site.htdocs, 'wp-config.php'), "<?php define('DB_NAME', 'b');\n")
      sh(`chown ${clone.site.user.uid} "${clone.site.htdocs}/wp-config.php"`)
      const { outcome } = await peer.run(
        clone.spec.id,
        restore({
          files: true,
          keep: ['/htdocs/wp-config.php'],
          databases: [{ databaseId: maria.databaseId, into: target.writer }],
        }),
      )
      ok(outcome)
      const { '/wp-config.php': config, ...rest } = before
      expect(config).toBeDefined()
      const cloned = htdocsOf(clone.site)
      expect(readFileSync(join(clone.site.htdocs, 'wp-config.php'), 'utf8')).toContain("'b'")
      delete cloned['/wp-config.php']
      expect(cloned).toEqual(rest)
      expect(statSync(join(clone.site.htdocs, 'sub', 'b.txt')).uid).toBe(clone.site.user.uid)
      expect(target.rows()).toEqual(['1:hello', '2:world', '3:again'])
    } finally {
      target.drop()
    }
  }, 180_000)

  test('an archive of the snapshot is a .tar.gz of it, read in pieces, dropped on demand', async () => {
    const { outcome } = await peer.run(siteId, { task: 'archive', repository, snapshotId: first.snapshotId })
    const made = ok(outcome) as Extract<RunOutcome, { task: 'archive' }>
    const parts: Buffer[] = []
    for (let offset = 0; ; ) {
      const chunk = (await peer.call(siteId, {
        op: 'archive.read',
        archiveId: made.archiveId,
        offset,
        length: 1024 * 1024,
      })) as {
        data: string
        totalBytes: number
      }
      expect(chunk.totalBytes).toBe(made.bytes)
      if (!chunk.data) break
      const bytes = Buffer.from(chunk.data, 'base64')
      parts.push(bytes)
      offset += bytes.length
    }
    const file = join(peer.dataDir, 'archive-test.tar.gz')
    writeFileSync(file, Buffer.concat(parts))
    expect(statSync(file).size).toBe(made.bytes)
    const names = sh(`tar -tzf "${file}"`).split('\n')
    // The site's home and the backup's record and dumps, by their own names, none by the node's paths.
    expect(names).toContain('./htdocs/sub/b.txt')
    expect(names).toContain('./htdocs/wp-config.php')
    expect(names).toContain(`./databases/${maria.databaseId}.sql`)
    expect(names).toContain('./record.json')
    expect(names.filter((name) => name.includes(peer.dataDir.slice(1)))).toEqual([])
    const extracted = join(peer.dataDir, 'archive-test')
    mkdirSync(extracted)
    sh(`tar -xzf "${file}" -C "${extracted}"`)
    expect(contentsOf(join(extracted, 'htdocs'))).toEqual(before)
    await peer.call(siteId, { op: 'archive.drop', archiveId: made.archiveId })
    await expect(
      peer.call(siteId, { op: 'archive.read', archiveId: made.archiveId, offset: 0, length: 10 }),
    ).rejects.toThrow(/no such archive/)
  }, 120_000)

  test('a newer archive of the site drops an older one never read (download links cannot fill the node’s disk)', async () => {
    const archiveOf = async () =>
      ok(
        (await peer.run(siteId, { task: 'archive', repository, snapshotId: first.snapshotId })).outcome,
      ) as Extract<RunOutcome, { task: 'archive' }>
    const older = await archiveOf()
    const newer = await archiveOf()
    await expect(
      peer.call(siteId, { op: 'archive.read', archiveId: older.archiveId, offset: 0, length: 10 }),
    ).rejects.toThrow(/no such archive/)
    const read = (await peer.call(siteId, {
      op: 'archive.read',
      archiveId: newer.archiveId,
      offset: 0,
      length: 10,
    })) as { totalBytes: number }
    expect(read.totalBytes).toBe(newer.bytes)
    await peer.call(siteId, { op: 'archive.drop', archiveId: newer.archiveId })
  }, 120_000)

  test('forgetting a snapshot removes it and prunes its data', async () => {
    const { outcome, ms } = await peer.run(siteId, backup({ databases: [] }))
    const second = ok(outcome) as typeof first
    console.info(
      `a second backup of the same site (its files unchanged): ${ms} ms, ${second.storedBytes} bytes stored`,
    )
    const { outcome: forgot } = await peer.run(siteId, {
      task: 'forget',
      repository,
      snapshotIds: [first.snapshotId],
    })
    expect(ok(forgot)).toEqual({ ok: true, task: 'forget', repositoryBytes: expect.any(Number) })
    const env = {
      RESTIC_REPOSITORY: join(peer.serviceDir, 'repositories', repositoryName),
      RESTIC_PASSWORD: repository.password,
      RESTIC_CACHE_DIR: join(peer.serviceDir, 'cache'),
    }
    const ids = (JSON.parse(sh('restic snapshots --json', env)) as { id: string }[]).map(
      (snapshot) => snapshot.id,
    )
    expect(ids).toEqual([second.snapshotId])
    const { outcome: missing } = await peer.run(siteId, restore({ files: true }))
    expect(missing).toMatchObject({ ok: false, code: 'snapshot_missing' })
  }, 180_000)
})
