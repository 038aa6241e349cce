// The S3 peer against the real restic: a repository made, backed up to and restored from with a push-only key that
// cannot forget, pruned with the full key; a wrong secret and an unknown key are refused as AWS refuses them.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { RepositorySpec } from '../node/protocol.ts'
import { forgetOnPanel, initOrOpen, ResticFailure, runRestic } from '../panel-restic.ts'
import { ensureDebianPackage } from './debian-packages.ts'
import { type S3Peer, startS3Server } from './s3-server.ts'

let peer: S3Peer
const signal = () => AbortSignal.timeout(120_000)
const push = { accessKeyId: 'AKPUSHONLY', secretAccessKey: 'push/secret+key', pushOnly: true }
const full = { accessKeyId: 'AKFULLKEY', secretAccessKey: 'full/secret+key' }
const spec = (key: { accessKeyId: string; secretAccessKey: string }): RepositorySpec => ({
  location: {
    kind: 's3',
    endpoint: peer.endpoint,
    bucket: 'backups',
    prefix: 'plinth/site_one',
    region: 'eu-central-1',
    ...key,
  },
  password: 'repository-password',
})
const failure = async (run: Promise<unknown>) => {
  const error = await run.then(
    () => null,
    (caught) => caught,
  )
  expect(error).toBeInstanceOf(ResticFailure)
  return error as ResticFailure
}
const folder = mkdtempSync(join(tmpdir(), 'plinth-s3-peer-'))

beforeAll(async () => {
  await ensureDebianPackage('/usr/bin/restic', 'restic')
  peer = await startS3Server({ keys: [push, full], buckets: ['backups'] })
})
afterAll(async () => {
  await peer.stop()
  rmSync(folder, { recursive: true, force: true })
})

test('restic backs up a folder to the store and restores it byte for byte', async () => {
  expect(await initOrOpen(spec(push), signal())).toEqual({ created: true })
  expect(existsSync(join(peer.folder, 'backups', 'plinth', 'site_one', 'config'))).toBe(true)
  const source = join(folder, 'source')
  const bytes = crypto.getRandomValues(new Uint8Array(3 * 1024 * 1024))
  await Bun.write(join(source, 'random.bin'), bytes)
  writeFileSync(join(source, 'note.txt'), 'kept\n')
  await runRestic(spec(push), ['backup', source], signal())
  await runRestic(spec(push), ['restore', 'latest', '--target', join(folder, 'restored')], signal())
  const restored = join(folder, 'restored', source)
  expect(new Uint8Array(readFileSync(join(restored, 'random.bin')))).toEqual(bytes)
  expect(readFileSync(join(restored, 'note.txt'), 'utf8')).toBe('kept\n')
})

test('a pack larger than minio-go’s part size (restic sends it in one PUT) comes back whole', async () => {
  const source = join(folder, 'large')
  const bytes = crypto.getRandomValues(new Uint8Array(40 * 1024 * 1024))
  await Bun.write(join(source, 'large.bin'), bytes)
  await runRestic(spec(push), ['backup', '--pack-size', '32', source], signal())
  expect(peer.requests.some((request) => request.method === 'POST')).toBe(false)
  await runRestic(spec(push), ['restore', 'latest', '--target', join(folder, 'restored-large')], signal())
  expect(new Uint8Array(readFileSync(join(folder, 'restored-large', source, 'large.bin')))).toEqual(bytes)
  await runRestic(spec(push), ['check', '--read-data'], signal())
}, 180_000)

test('the push-only key cannot forget; the full key forgets and prunes the data away', async () => {
  const refused = await failure(runRestic(spec(push), ['forget', '--prune', 'latest'], signal()))
  expect(refused.code).toBe('refused')
  const before = await runRestic(spec(full), ['snapshots', '--json'], signal())
  const ids = (JSON.parse(before.stdout) as { id: string }[]).map((snapshot) => snapshot.id)
  expect(ids).toHaveLength(2)
  await forgetOnPanel(spec(full), ids, signal())
  const listed = await runRestic(spec(full), ['snapshots', '--json'], signal())
  expect(JSON.parse(listed.stdout)).toEqual([])
}, 180_000)

test('a wrong secret and an unknown key are login failures that name neither secret', async () => {
  const wrong = await failure(initOrOpen(spec({ ...push, secretAccessKey: 'not-the-secret' }), signal()))
  expect(wrong.code).toBe('login_failed')
  expect(wrong.message).not.toContain('not-the-secret')
  const unknown = await failure(initOrOpen(spec({ accessKeyId: 'AKNOBODY', secretAccessKey: 'x' }), signal()))
  expect(unknown.code).toBe('login_failed')
  expect(
    peer.requests.some((request) => request.status === 403 && request.accessKeyId === 'AKPUSHONLY'),
  ).toBe(true)
})
