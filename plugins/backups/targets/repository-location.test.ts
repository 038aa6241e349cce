// A site's repository on each kind of target, with push or prune credentials, from a stored target row.

import { expect, test } from 'bun:test'
import type { SecretBox } from '../../../core/index.ts'
import type { BackupTargetsTable } from '../migrations.ts'
import { locationFor } from './repository-location.ts'
import { type OpenTarget, sealedColumns } from './target-record.ts'

// Sealing itself is the kernel's (and tested there): here a box that only has to give back what it took.
const secrets: SecretBox = {
  seal: (plain) => `sealed:${Buffer.from(plain).toString('base64')}`,
  open: (sealed) => Buffer.from(sealed.slice('sealed:'.length), 'base64').toString(),
}
const rowOf = (target: OpenTarget): BackupTargetsTable => ({
  id: 'bkt_1',
  name: 'target',
  ...sealedColumns(target, secrets),
  is_default: 0,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
})

test('a local target names the site’s repository on its node', () => {
  expect(
    locationFor(rowOf({ place: { kind: 'local' }, push: null, prune: null }), secrets, 'site_1', 'push'),
  ).toEqual({ kind: 'local', name: 'site_1' })
})

test('an sftp repository is below the target’s folder, with its key and its pinned host keys off port 22', () => {
  const row = rowOf({
    place: {
      kind: 'sftp',
      host: 'b.example',
      port: 2222,
      username: 'u',
      path: '/srv/repos/',
      hostKeys: ['ssh-ed25519 AAAA'],
    },
    push: { kind: 'sftp', privateKey: 'KEY' },
    prune: null,
  })
  expect(row.location_json).not.toContain('KEY')
  expect(locationFor(row, secrets, 'site_1', 'prune')).toEqual({
    kind: 'sftp',
    host: 'b.example',
    port: 2222,
    username: 'u',
    path: '/srv/repos/site_1',
    privateKey: 'KEY',
    knownHosts: '[b.example]:2222 ssh-ed25519 AAAA',
  })
})

test('a rest repository is a folder of the URL; pruning uses the prune login when there is one', () => {
  const row = rowOf({
    place: { kind: 'rest', url: 'https://b.example:8000/plinth', username: 'push' },
    push: { kind: 'rest', password: 'push-pass' },
    prune: { kind: 'rest', username: 'prune', password: 'prune-pass' },
  })
  expect(locationFor(row, secrets, 'site_1', 'push')).toEqual({
    kind: 'rest',
    url: 'https://b.example:8000/plinth/site_1/',
    username: 'push',
    password: 'push-pass',
  })
  expect(locationFor(row, secrets, 'site_1', 'prune')).toMatchObject({
    username: 'prune',
    password: 'prune-pass',
  })
})

test('an s3 repository is under the prefix (or the bucket’s top), pruned with the prune key when given', () => {
  const place = {
    kind: 's3' as const,
    endpoint: 'http://s3',
    bucket: 'b',
    prefix: '',
    region: null,
    accessKeyId: 'AK',
  }
  const bare = rowOf({ place, push: { kind: 's3', secretAccessKey: 'SK' }, prune: null })
  expect(locationFor(bare, secrets, 'site_1', 'prune')).toMatchObject({
    prefix: 'site_1',
    accessKeyId: 'AK',
    secretAccessKey: 'SK',
  })
  const split = rowOf({
    place: { ...place, prefix: '/plinth/' },
    push: { kind: 's3', secretAccessKey: 'SK' },
    prune: { kind: 's3', accessKeyId: 'AKP', secretAccessKey: 'SKP' },
  })
  expect(locationFor(split, secrets, 'site_1', 'push')).toMatchObject({
    prefix: 'plinth/site_1',
    accessKeyId: 'AK',
  })
  expect(locationFor(split, secrets, 'site_1', 'prune')).toMatchObject({
    accessKeyId: 'AKP',
    secretAccessKey: 'SKP',
  })
})
