// Backups of a served site to each kind of target, for real (a real sshd over SFTP, restic's REST protocol, an
// S3-compatible store checking signatures), and what goes wrong told by its code: a damaged repository (`repository_corrupt`), a dump that fails
// (`dump_failed`: a refused password, a login without a grant), a target that refuses or is down, or a password that
// opens nothing (`repository_unreachable`), and a cancel that kills restic mid-upload (`cancelled`).

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type RestPeer, startRestServer } from '../testing/rest-server.ts'
import { type S3Peer, startS3Server } from '../testing/s3-server.ts'
import { generateSshKey, type SftpPeer, startSftpServer } from '../testing/sftp-server.ts'
import type { BackupTask, RepositorySpec, RunOutcome, RunRead } from './protocol.ts'
import {
  type BackupNode,
  mariadbDatabase,
  sh,
  startBackupNode,
  type TestDatabase,
  type TestSite,
} from './testing/backup-node.ts'

let peer: BackupNode
let site: TestSite
let siteId: string
let maria: TestDatabase
let sftp: SftpPeer
let rest: RestPeer
let s3: S3Peer
const s3Key = { accessKeyId: 'AKIAPLINTHTEST', secretAccessKey: `s3-${crypto.randomUUID()}` }
const restUser = { username: 'push', password: `rest-${crypto.randomUUID()}` }

const local = (): RepositorySpec => ({
  location: { kind: 'local', name: `bk-${crypto.randomUUID().slice(0, 8)}` },
  password: `pw-${crypto.randomUUID()}`,
})

function backup(
  repository: RepositorySpec,
  overrides: Partial<Extract<BackupTask, { task: 'backup' }>> = {},
): BackupTask {
  return {
    task: 'backup',
    backupId: `bkp_${crypto.randomUUID().replaceAll('-', '').slice(0, 20)}`,
    repository,
    files: true,
    databases: [],
    record: {},
    verify: { readDataPercent: 100, sampleFiles: 3 },
    ...overrides,
  }
}

/** The outcome's code, with its message in the failure when it is not the one expected. */
function failure(outcome: RunOutcome): { code: string; message: string } {
  if (outcome.ok) return { code: 'ok', message: '' }
  return { code: outcome.code, message: outcome.message }
}

beforeAll(async () => {
  peer = await startBackupNode('plinth-backups-targets-')
  const made = await peer.provision('t')
  site = made.site
  siteId = made.spec.id
  maria = mariadbDatabase('t')
  writeFileSync(join(site.htdocs, 'index.php'), '<?php echo "hello";\n')
  writeFileSync(join(site.htdocs, 'page.html'), '<p>page</p>\n'.repeat(1000))
  sh(`chown -R ${site.user.uid} "${site.htdocs}"`)
  sftp = await startSftpServer()
  rest = await startRestServer({ users: [restUser] })
  s3 = await startS3Server({ keys: [s3Key], buckets: ['backups'] })
}, 60_000)

afterAll(async () => {
  await peer?.close()
  maria?.drop()
  await sftp?.close()
  await rest?.stop()
  await s3?.stop()
})

describe('targets', () => {
  test('a backup to an SFTP server (key and host key only) restores from it', async () => {
    const repository: RepositorySpec = {
      location: {
        kind: 'sftp',
        host: sftp.host,
        port: sftp.port,
        username: sftp.username,
        path: `${sftp.path}/${siteId}`,
        privateKey: sftp.privateKey,
        knownHosts: sftp.knownHosts,
      },
      password: `pw-${crypto.randomUUID()}`,
    }
    const { outcome } = await peer.run(siteId, backup(repository))
    expect(failure(outcome)).toEqual({ code: 'ok', message: '' })
    expect(readdirSync(join(sftp.folder, siteId))).toContain('config')
    // The key was the run's alone: nothing of it is left on the node.
    expect(readdirSync(join(peer.serviceDir, 'keys'))).toEqual([])
    writeFileSync(join(site.htdocs, 'index.php'), '<?php echo "changed";\n')
    const snapshotId = (outcome as Extract<RunOutcome, { task: 'backup' }>).snapshotId
    const { outcome: restored } = await peer.run(siteId, {
      task: 'restore',
      repository,
      snapshotId,
      files: ['/htdocs/index.php'],
      keep: [],
      databases: [],
    })
    expect(failure(restored)).toEqual({ code: 'ok', message: '' })
    expect(readFileSync(join(site.htdocs, 'index.php'), 'utf8')).toContain('hello')
  }, 120_000)

  test('a backup to a REST server goes through its login', async () => {
    const repository: RepositorySpec = {
      location: { kind: 'rest', url: `${rest.url}/${siteId}/`, ...restUser },
      password: `pw-${crypto.randomUUID()}`,
    }
    const { outcome } = await peer.run(siteId, backup(repository))
    expect(failure(outcome)).toEqual({ code: 'ok', message: '' })
    expect(
      rest.requests.some((request) => request.user === restUser.username && request.method === 'POST'),
    ).toBe(true)
  }, 120_000)

  test('a backup to an S3-compatible store signs with its key; another secret is repository_unreachable', async () => {
    const location = {
      kind: 's3' as const,
      endpoint: s3.endpoint,
      bucket: 'backups',
      prefix: `plinth/${siteId}`,
      region: 'us-east-1',
      ...s3Key,
    }
    const { outcome } = await peer.run(siteId, backup({ location, password: `pw-${crypto.randomUUID()}` }))
    expect(failure(outcome)).toEqual({ code: 'ok', message: '' })
    expect(readdirSync(join(s3.folder, 'backups', 'plinth', siteId))).toContain('config')
    const wrong = await peer.run(
      siteId,
      backup({
        location: { ...location, secretAccessKey: 'not-the-secret' },
        password: `pw-${crypto.randomUUID()}`,
      }),
    )
    expect(failure(wrong.outcome).code).toBe('repository_unreachable')
    expect(failure(wrong.outcome).message).not.toContain('not-the-secret')
  }, 120_000)
})

describe('failures, each with its code', () => {
  test('a repository whose data was damaged fails the next backup’s check: repository_corrupt', async () => {
    const repository = local()
    const { outcome } = await peer.run(siteId, backup(repository))
    expect(failure(outcome).code).toBe('ok')
    const data = join(peer.serviceDir, 'repositories', (repository.location as { name: string }).name, 'data')
    const packs = readdirSync(data).flatMap((dir) =>
      readdirSync(join(data, dir)).map((name) => join(data, dir, name)),
    )
    expect(packs.length).toBeGreaterThan(0)
    for (const pack of packs) {
      const bytes = readFileSync(pack)
      for (let at = 16; at < bytes.length - 16; at += 97) bytes[at] = (bytes[at] ?? 0) ^ 0xff
      writeFileSync(pack, bytes)
    }
    const { outcome: after } = await peer.run(siteId, backup(repository))
    expect(failure(after).code).toBe('repository_corrupt')
    expect(failure(after).message).not.toContain(peer.dataDir)
  }, 120_000)

  test('a dump whose login is refused, or lacks the grant, fails the backup: dump_failed, no snapshot made', async () => {
    const repository = local()
    const wrong = { ...maria.reader, password: 'not-the-password' }
    const { outcome } = await peer.run(
      siteId,
      backup(repository, {
        databases: [{ databaseId: maria.databaseId, login: wrong, scratch: maria.scratch }],
      }),
    )
    expect(failure(outcome).code).toBe('dump_failed')
    expect(failure(outcome).message).toContain(maria.databaseId)
    expect(failure(outcome).message).not.toContain(wrong.password)
    // The scratch login may not read the site's database.
    const { outcome: ungranted } = await peer.run(
      siteId,
      backup(repository, {
        databases: [
          {
            databaseId: maria.databaseId,
            login: { ...maria.scratch, database: maria.name },
            scratch: maria.scratch,
          },
        ],
      }),
    )
    expect(failure(ungranted).code).toBe('dump_failed')
    const repo = join(peer.serviceDir, 'repositories', (repository.location as { name: string }).name)
    expect(readdirSync(join(repo, 'snapshots'))).toEqual([])
    expect(readdirSync(join(peer.serviceDir, 'staging'))).toEqual([])
  }, 120_000)

  test('an SFTP target that is down, or refuses the key, is repository_unreachable', async () => {
    const location = {
      kind: 'sftp' as const,
      host: sftp.host,
      port: sftp.port,
      username: sftp.username,
      path: `${sftp.path}/unreachable`,
      privateKey: sftp.privateKey,
      knownHosts: sftp.knownHosts,
    }
    const otherKey = (await generateSshKey()).privateKey
    const refused = await peer.run(
      siteId,
      backup({ location: { ...location, privateKey: otherKey }, password: 'x'.repeat(20) }),
    )
    expect(failure(refused.outcome).code).toBe('repository_unreachable')
    expect(failure(refused.outcome).message).not.toContain('PRIVATE KEY')
    await sftp.refuse()
    try {
      const down = await peer.run(siteId, backup({ location, password: 'x'.repeat(20) }))
      expect(failure(down.outcome).code).toBe('repository_unreachable')
    } finally {
      await sftp.resume()
    }
  }, 120_000)

  test('a repository that the password does not open is repository_unreachable, never made again', async () => {
    const repository = local()
    expect(failure((await peer.run(siteId, backup(repository))).outcome).code).toBe('ok')
    const { outcome } = await peer.run(siteId, backup({ ...repository, password: 'another-password' }))
    expect(failure(outcome).code).toBe('repository_unreachable')
    expect(failure(outcome).message).not.toContain('another-password')
    const rest403 = await peer.run(
      siteId,
      backup({
        location: { kind: 'rest', url: `${rest.url}/${siteId}-x/`, username: 'push', password: 'wrong' },
        password: 'p',
      }),
    )
    expect(failure(rest403.outcome).code).toBe('repository_unreachable')
    expect(failure(rest403.outcome).message).not.toContain('wrong')
  }, 120_000)

  test('a restore into a site whose disk cannot hold it is disk_quota_exceeded, and leaves nothing behind', async () => {
    const repository = local()
    sh(
      `head -c 48000000 /dev/urandom > "${site.htdocs}/large.bin" && chown ${site.user.uid} "${site.htdocs}/large.bin"`,
    )
    try {
      const { outcome } = await peer.run(siteId, backup(repository))
      expect(failure(outcome).code).toBe('ok')
      const small = await peer.provision('s', { diskMB: 30 })
      const { outcome: restored } = await peer.run(small.spec.id, {
        task: 'restore',
        repository,
        snapshotId: (outcome as Extract<RunOutcome, { task: 'backup' }>).snapshotId,
        files: true,
        keep: [],
        databases: [],
      })
      expect(failure(restored).code).toBe('disk_quota_exceeded')
      expect(readdirSync(small.site.home).filter((name) => name.startsWith('.plinth-restore'))).toEqual([])
    } finally {
      sh(`rm -f "${site.htdocs}/large.bin"`)
    }
  }, 120_000)
})

describe('runs', () => {
  test('runs on the same repository take turns: a forget started during a backup waits, then both succeed', async () => {
    sh(
      `head -c 150000000 /dev/urandom > "${site.htdocs}/big.bin" && chown ${site.user.uid} "${site.htdocs}/big.bin"`,
    )
    try {
      const repository = local()
      const { runId: backupRun } = (await peer.call(siteId, {
        op: 'run.start',
        run: backup(repository),
      })) as {
        runId: string
      }
      const { runId: forgetRun } = (await peer.call(siteId, {
        op: 'run.start',
        run: { task: 'forget', repository, snapshotIds: ['0123456789abcdef'] },
      })) as { runId: string }
      const waiting = (await peer.call(siteId, { op: 'run.read', runId: forgetRun, waitMs: 0 })) as RunRead
      expect(waiting.step).toBe('waiting for another run on the repository')
      const outcomes: RunOutcome[] = []
      for (const runId of [backupRun, forgetRun]) {
        let read: RunRead
        do read = (await peer.call(siteId, { op: 'run.read', runId, waitMs: 10_000 })) as RunRead
        while (!read.outcome)
        outcomes.push(read.outcome)
      }
      expect(outcomes.map((outcome) => failure(outcome))).toEqual([
        { code: 'ok', message: '' },
        { code: 'ok', message: '' },
      ])
    } finally {
      sh(`rm -f "${site.htdocs}/big.bin"`)
    }
  }, 120_000)

  test('a cancel kills restic mid-upload: the run ends cancelled and no restic of it is left', async () => {
    sh(
      `head -c 400000000 /dev/urandom > "${site.htdocs}/big.bin" && chown ${site.user.uid} "${site.htdocs}/big.bin"`,
    )
    try {
      const repository = local()
      const { runId } = (await peer.call(siteId, { op: 'run.start', run: backup(repository) })) as {
        runId: string
      }
      const repo = join(peer.serviceDir, 'repositories', (repository.location as { name: string }).name)
      for (;;) {
        const read = (await peer.call(siteId, { op: 'run.read', runId, waitMs: 5000 })) as RunRead
        expect(read.outcome).toBeNull()
        if (read.step === 'uploading' && resticsOf(repo).length > 0) break
      }
      // The password reaches restic through its environment, never its command line (which any user reads).
      for (const pid of resticsOf(repo))
        expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).not.toContain(repository.password)
      await peer.call(siteId, { op: 'run.cancel', runId })
      let read: RunRead
      do read = (await peer.call(siteId, { op: 'run.read', runId, waitMs: 5000 })) as RunRead
      while (!read.outcome)
      expect(read.outcome).toEqual({ ok: false, code: 'cancelled', message: expect.any(String) })
      expect(resticsOf(repo)).toEqual([])
      // Read again, the outcome is the same.
      expect(((await peer.call(siteId, { op: 'run.read', runId, waitMs: 0 })) as RunRead).outcome).toEqual(
        read.outcome,
      )
      expect(readdirSync(join(peer.serviceDir, 'staging'))).toEqual([])
    } finally {
      sh(`rm -f "${site.htdocs}/big.bin"`)
    }
  }, 120_000)
})

/** The pids of restic processes working on the repository at `path` (from their environment). */
function resticsOf(path: string): number[] {
  const found: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (!readFileSync(`/proc/${name}/comm`, 'utf8').startsWith('restic')) continue
      if (readFileSync(`/proc/${name}/environ`, 'utf8').split('\0').includes(`RESTIC_REPOSITORY=${path}`))
        found.push(Number(name))
    } catch {
      // Gone meanwhile.
    }
  }
  return found.filter((pid) => statSync(`/proc/${pid}`, { throwIfNoEntry: false }))
}
