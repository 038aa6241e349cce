// The backup targets' staff API from outside, against real peers: an sshd serving SFTP, a restic REST server with an
// append-only user, an S3 store with a push-only key. Targets that pass the check are kept with their secrets
// sealed; each refusal has its code, located at its field, and stores nothing; no answer and no audit entry ever
// holds a secret; staff only; deletion refused while sites use a target or while it is the default.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  createTestPanel,
  createTestUser,
  expectFieldProblem,
  expectProblem,
  freePort,
  type TestPanel,
} from '../../../hosts/testing/index.ts'
import type { BackupTarget } from '../contract.ts'
import type { BackupTables } from '../migrations.ts'
import { runRestic } from '../panel-restic.ts'
import { ensureDebianPackage } from '../testing/debian-packages.ts'
import { type RestPeer, startRestServer } from '../testing/rest-server.ts'
import { type S3Peer, startS3Server } from '../testing/s3-server.ts'
import { generateSshKey, type SftpPeer, startSftpServer } from '../testing/sftp-server.ts'
import { defaultTargetName } from './default-target.ts'

let tp: TestPanel
let staff: string
let sftp: SftpPeer
let rest: RestPeer
let s3: S3Peer
/** Every answer's text, to look for secrets in. */
const answers: string[] = []
const restUsers = {
  push: { username: 'push', password: 'push-secret-pass', appendOnly: true },
  prune: { username: 'prune', password: 'prune-secret-pass' },
}
const s3Keys = {
  push: { accessKeyId: 'AKPUSHONLYKEY', secretAccessKey: 's3-push-secret', pushOnly: true },
  full: { accessKeyId: 'AKFULLKEY', secretAccessKey: 's3-full-secret' },
}

const call = async (method: string, path: string, body?: unknown, token = staff) => {
  const response = await tp.request(method, `/api/v1${path}`, { token, body })
  answers.push(await response.clone().text())
  return response
}
async function json<T>(response: Response, status: number): Promise<T> {
  const text = await response.text()
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`)
  return JSON.parse(text) as T
}
const list = async () =>
  (await json<{ items: BackupTarget[] }>(await call('GET', '/backup-targets?limit=100'), 200)).items
const sftpBody = (changes: Record<string, unknown> = {}) => ({
  name: `sftp-${crypto.randomUUID().slice(0, 8)}`,
  kind: 'sftp',
  host: sftp.host,
  port: sftp.port,
  username: sftp.username,
  path: sftp.path,
  privateKey: sftp.privateKey,
  ...changes,
})
/** A refusal that must have stored nothing. */
async function refusedWithNothingStored(body: unknown, code: string, location: string) {
  const before = await list()
  await expectFieldProblem(await call('POST', '/backup-targets', body), 422, code, location)
  expect(await list()).toEqual(before)
}

beforeAll(async () => {
  await ensureDebianPackage('/usr/bin/restic', 'restic')
  ;[sftp, rest, s3] = await Promise.all([
    startSftpServer(),
    startRestServer({ users: [restUsers.push, restUsers.prune] }),
    startS3Server({ keys: [s3Keys.push, s3Keys.full], buckets: ['backups'] }),
  ])
  tp = await createTestPanel()
  staff = await tp.token()
})
afterAll(async () => {
  await tp?.panel.close()
  await Promise.all([sftp?.close(), rest?.stop(), s3?.stop()])
})

describe('a fresh installation', () => {
  test('has one target, the default: each site’s own node', async () => {
    const targets = await list()
    expect(targets).toHaveLength(1)
    expect(targets[0]).toMatchObject({
      name: defaultTargetName,
      kind: 'local',
      default: true,
      pushOnly: false,
      location: {},
    })
  })
})

describe('adding targets that pass the check', () => {
  test('an SFTP target: the server’s host key read and pinned, its fingerprint shown, the key never', async () => {
    const created = await call('POST', '/backup-targets', sftpBody({ name: 'Offsite SFTP' }))
    const target = await json<BackupTarget>(created, 201)
    expect(created.headers.get('location')).toBe(`/api/v1/backup-targets/${target.id}`)
    expect(target).toMatchObject({ kind: 'sftp', default: false, pushOnly: false })
    expect(target.location).toMatchObject({
      host: sftp.host,
      port: sftp.port,
      username: sftp.username,
      path: sftp.path,
    })
    const hostKey = sftp.knownHosts.split(' ').slice(1).join(' ')
    const fingerprint = `SHA256:${new Bun.CryptoHasher('sha256')
      .update(Buffer.from(hostKey.split(' ')[1] as string, 'base64'))
      .digest('base64')
      .replace(/=+$/, '')}`
    expect(target.location.hostKeyFingerprint).toBe(`${fingerprint} (ssh-ed25519)`)
    // The check made its repository beside where sites' go, and left no snapshot in it.
    expect(await Bun.file(`${sftp.folder}/plinth-check/config`).exists()).toBe(true)
    expect(await json<BackupTarget>(await call('GET', `/backup-targets/${target.id}`), 200)).toEqual(target)
  })

  test('an SFTP target with its host key given', async () => {
    const hostKey = sftp.knownHosts.split(' ').slice(1).join(' ')
    await json<BackupTarget>(await call('POST', '/backup-targets', sftpBody({ hostKeys: [hostKey] })), 201)
  })

  test('a REST target with an append-only user and separate prune credentials is push-only', async () => {
    const target = await json<BackupTarget>(
      await call('POST', '/backup-targets', {
        name: 'REST',
        kind: 'rest',
        url: `${rest.url}/plinth`,
        username: restUsers.push.username,
        password: restUsers.push.password,
        pruneUsername: restUsers.prune.username,
        prunePassword: restUsers.prune.password,
      }),
      201,
    )
    expect(target).toMatchObject({
      kind: 'rest',
      pushOnly: true,
      location: { url: `${rest.url}/plinth`, username: 'push' },
    })
    // The check's snapshot was removed by the prune user, never by the append-only one.
    const deletions = rest.requests.filter(
      (request) => request.method === 'DELETE' && request.path.includes('/snapshots/'),
    )
    expect(deletions.length).toBeGreaterThan(0)
    expect(deletions.every((request) => request.user === 'prune' && request.status === 200)).toBe(true)
  })

  test('an S3 target with a push-only key and a prune key, made the default (the former default no longer is)', async () => {
    const target = await json<BackupTarget>(
      await call('POST', '/backup-targets', {
        name: 'S3',
        kind: 's3',
        default: true,
        endpoint: s3.endpoint,
        bucket: 'backups',
        prefix: 'plinth',
        region: 'eu-central-1',
        accessKeyId: s3Keys.push.accessKeyId,
        secretAccessKey: s3Keys.push.secretAccessKey,
        pruneAccessKeyId: s3Keys.full.accessKeyId,
        pruneSecretAccessKey: s3Keys.full.secretAccessKey,
      }),
      201,
    )
    expect(target).toMatchObject({
      default: true,
      pushOnly: true,
      location: {
        endpoint: s3.endpoint,
        bucket: 'backups',
        prefix: 'plinth',
        region: 'eu-central-1',
        accessKeyId: 'AKPUSHONLYKEY',
      },
    })
    expect((await list()).filter((each) => each.default).map((each) => each.id)).toEqual([target.id])
    expect(await Bun.file(`${s3.folder}/backups/plinth/plinth-check/config`).exists()).toBe(true)
  })
})

describe('refusals store nothing', () => {
  test('another key is target_login_failed at the key', async () => {
    const other = await generateSshKey()
    await refusedWithNothingStored(
      sftpBody({ privateKey: other.privateKey }),
      'target_login_failed',
      'body.privateKey',
    )
  })

  test('another host key is target_host_key_mismatch', async () => {
    const foreign = (await generateSshKey()).publicKey.split(' ').slice(0, 2).join(' ')
    await refusedWithNothingStored(
      sftpBody({ hostKeys: [foreign] }),
      'target_host_key_mismatch',
      'body.hostKeys',
    )
  })

  test('a port nothing listens on is target_unreachable, scanned or not', async () => {
    const port = freePort()
    await refusedWithNothingStored(sftpBody({ port }), 'target_unreachable', 'body.host')
    const hostKey = sftp.knownHosts.split(' ').slice(1).join(' ')
    await refusedWithNothingStored(sftpBody({ port, hostKeys: [hostKey] }), 'target_unreachable', 'body.host')
    const body = { name: 'gone', kind: 'rest', url: `http://127.0.0.1:${port}/x` }
    await refusedWithNothingStored(body, 'target_unreachable', 'body.url')
  })

  test('a wrong REST password and a wrong S3 secret are target_login_failed at the secret', async () => {
    await refusedWithNothingStored(
      { name: 'bad rest', kind: 'rest', url: rest.url, username: 'push', password: 'wrong-rest-pass' },
      'target_login_failed',
      'body.password',
    )
    await refusedWithNothingStored(
      {
        name: 'bad prune',
        kind: 'rest',
        url: rest.url,
        username: 'push',
        password: restUsers.push.password,
        pruneUsername: 'prune',
        prunePassword: 'wrong-prune-pass',
      },
      'target_login_failed',
      'body.prunePassword',
    )
    await refusedWithNothingStored(
      {
        name: 'bad s3',
        kind: 's3',
        endpoint: s3.endpoint,
        bucket: 'backups',
        accessKeyId: s3Keys.full.accessKeyId,
        secretAccessKey: 'wrong-s3-secret',
      },
      'target_login_failed',
      'body.secretAccessKey',
    )
  })

  test('a plinth-check repository another installation left with another password is target_check_failed', async () => {
    const url = `${rest.url}/elsewhere`
    await runRestic(
      {
        location: { kind: 'rest', url: `${url}/plinth-check/`, ...restUsers.prune },
        password: 'not the panel’s',
      },
      ['init'],
      AbortSignal.timeout(60_000),
    )
    await refusedWithNothingStored(
      { name: 'taken', kind: 'rest', url, username: 'prune', password: restUsers.prune.password },
      'target_check_failed',
      'body.url',
    )
  })

  test('a missing bucket is target_refused', async () => {
    await refusedWithNothingStored(
      {
        name: 'no bucket',
        kind: 's3',
        endpoint: s3.endpoint,
        bucket: 'nonesuch',
        ...{ accessKeyId: s3Keys.full.accessKeyId, secretAccessKey: s3Keys.full.secretAccessKey },
      },
      'target_refused',
      'body.bucket',
    )
  })

  test('bodies are checked field by field before anything is reached', async () => {
    await refusedWithNothingStored(
      { name: 'x', kind: 'rest', url: 'ftp://127.0.0.1/x' },
      'invalid_target_url',
      'body.url',
    )
    await refusedWithNothingStored(
      { name: 'x', kind: 'rest', url: `http://u:p@127.0.0.1:${rest.port}/` },
      'invalid_target_url',
      'body.url',
    )
    await refusedWithNothingStored(
      sftpBody({ privateKey: 'ssh-ed25519 AAAA not a private key' }),
      'invalid_private_key',
      'body.privateKey',
    )
    await refusedWithNothingStored(
      sftpBody({ hostKeys: ['ssh-ed25519 bm90IGEga2V5'] }),
      'invalid_host_key',
      'body.hostKeys[0]',
    )
    await refusedWithNothingStored(sftpBody({ host: 'bad host!' }), 'invalid_target_host', 'body.host')
    await refusedWithNothingStored(sftpBody({ path: '/repos/../etc' }), 'invalid_target_path', 'body.path')
    await refusedWithNothingStored(
      sftpBody({ username: '-oProxyCommand=x' }),
      'invalid_target_username',
      'body.username',
    )
    await refusedWithNothingStored(sftpBody({ url: rest.url }), 'backup_target_kind_fields', 'body.url')
    await refusedWithNothingStored(
      { name: 'x', kind: 'sftp', host: sftp.host, username: 'u', path: '/r' },
      'backup_target_kind_fields',
      'body.privateKey',
    )
    await refusedWithNothingStored(
      {
        name: 'x',
        kind: 's3',
        endpoint: s3.endpoint,
        bucket: 'Not_A_Bucket',
        accessKeyId: 'a',
        secretAccessKey: 'b',
      },
      'invalid_bucket_name',
      'body.bucket',
    )
    await refusedWithNothingStored(
      { name: 'x', kind: 'rest', url: rest.url, pruneUsername: 'prune' },
      'backup_target_kind_fields',
      'body.prunePassword',
    )
    await expectFieldProblem(
      await call('POST', '/backup-targets', { name: defaultTargetName, kind: 'local' }),
      409,
      'backup_target_name_taken',
      'body.name',
    )
    const tooLong = await call('POST', '/backup-targets', { name: 'x'.repeat(101), kind: 'local' })
    expect(tooLong.status).toBe(422)
  })
})

describe('changes', () => {
  test('a rename, a move of the default, and new credentials checked before they are kept', async () => {
    const target = await json<BackupTarget>(await call('POST', '/backup-targets', sftpBody()), 201)
    const renamed = await json<BackupTarget>(
      await call('PATCH', `/backup-targets/${target.id}`, { name: 'Renamed SFTP' }),
      200,
    )
    expect(renamed.name).toBe('Renamed SFTP')
    await json(await call('PATCH', `/backup-targets/${target.id}`, { default: true }), 200)
    expect((await list()).filter((each) => each.default).map((each) => each.id)).toEqual([target.id])
    const other = await generateSshKey()
    await expectFieldProblem(
      await call('PATCH', `/backup-targets/${target.id}`, { privateKey: other.privateKey }),
      422,
      'target_login_failed',
      'body.privateKey',
    )
    await expectFieldProblem(
      await call('PATCH', `/backup-targets/${target.id}`, { password: 'a REST password' }),
      422,
      'backup_target_kind_fields',
      'body.password',
    )
    // The same key again passes the check.
    await json(await call('PATCH', `/backup-targets/${target.id}`, { privateKey: sftp.privateKey }), 200)
    const local = (await list()).find((each) => each.kind === 'local') as BackupTarget
    await json(await call('PATCH', `/backup-targets/${local.id}`, { default: true }), 200)
  })
})

describe('deletion', () => {
  test('refused while a site’s repository or policy is on the target, or while it is the default', async () => {
    const target = await json<BackupTarget>(
      await call('POST', '/backup-targets', { name: 'spare', kind: 'local' }),
      201,
    )
    const db = tp.panel.store.db.withTables<BackupTables>()
    const now = new Date().toISOString()
    await db
      .insertInto('backup_repositories')
      .values({
        site_id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SAA',
        target_id: target.id,
        customer_id: 'cus_x',
        password_sealed: 'x',
        stored_bytes: 0,
        created_at: now,
      })
      .execute()
    await db
      .insertInto('backup_policies')
      .values({
        site_id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SBB',
        schedule: null,
        keep_daily: null,
        keep_weekly: null,
        keep_monthly: null,
        target_id: target.id,
        updated_at: now,
      })
      .execute()
    const refused = await expectProblem(
      await call('DELETE', `/backup-targets/${target.id}`),
      409,
      'backup_target_in_use',
    )
    expect((refused as unknown as { blockers: unknown }).blockers).toEqual([
      { name: 'backup-repositories', count: 1 },
      { name: 'backup-policies', count: 1 },
    ])
    await db.deleteFrom('backup_repositories').where('target_id', '=', target.id).execute()
    await expectProblem(await call('DELETE', `/backup-targets/${target.id}`), 409, 'backup_target_in_use')
    await db.deleteFrom('backup_policies').where('target_id', '=', target.id).execute()
    expect((await call('DELETE', `/backup-targets/${target.id}`)).status).toBe(204)
    expect((await call('GET', `/backup-targets/${target.id}`)).status).toBe(404)
    const fallback = (await list()).find((each) => each.default) as BackupTarget
    await expectProblem(
      await call('DELETE', `/backup-targets/${fallback.id}`),
      409,
      'backup_target_is_default',
    )
  })
})

describe('staff only, and never a secret', () => {
  test('customer-limited tokens and staff tokens without the scope are refused; non-staff users too', async () => {
    const created = await json<{ id: string }>(
      await call('POST', '/customers', { name: 'Targets customer' }),
      201,
    )
    const limited = await tp.token({ customerId: created.id })
    await expectProblem(await call('GET', '/backup-targets', undefined, limited), 403, 'staff_only')
    await expectProblem(
      await call('POST', '/backup-targets', { name: 'n', kind: 'local' }, limited),
      403,
      'staff_only',
    )
    const readOnly = await tp.token({ scopes: ['backup-target:read'] })
    expect((await call('GET', '/backup-targets', undefined, readOnly)).status).toBe(200)
    expect((await call('POST', '/backup-targets', { name: 'n', kind: 'local' }, readOnly)).status).toBe(403)
    const member = await createTestUser(tp.panel.store.db, { email: 'owner@targets.test', staffRole: null })
    await json(
      await call('POST', `/customers/${created.id}/members`, { email: member.email, role: 'owner' }),
      201,
    )
    const owner = await tp.token({ user: member })
    expect((await call('GET', '/backup-targets', undefined, owner)).status).toBe(403)
  })

  test('no answer and no audit entry holds a key, password or secret; the changes are audited', async () => {
    const audit = await json<{ items: { action: string; details: unknown }[] }>(
      await call('GET', '/audit?limit=100'),
      200,
    )
    const actions = audit.items.map((entry) => entry.action)
    expect(actions).toContain('backup_target.create')
    expect(actions).toContain('backup_target.update')
    expect(actions).toContain('backup_target.delete')
    const said = [...answers, JSON.stringify(audit)].join('\n')
    const keyBody = sftp.privateKey.split('\n')[1] as string
    for (const secret of [
      keyBody,
      restUsers.push.password,
      restUsers.prune.password,
      s3Keys.push.secretAccessKey,
      s3Keys.full.secretAccessKey,
      'wrong-rest-pass',
      'wrong-prune-pass',
      'wrong-s3-secret',
    ])
      expect(said).not.toContain(secret)
  })
})
