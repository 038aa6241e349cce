// The REST peer against the real restic: a repository made, backed up to and listed by an append-only user, whose
// `forget` the server refuses, while the full user's goes through; wrong credentials are 401s.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { ResticFailure, runRestic } from '../panel-restic.ts'
import { ensureDebianPackage } from './debian-packages.ts'
import { type RestPeer, startRestServer } from './rest-server.ts'

let peer: RestPeer
const users = [
  { username: 'push', password: 'push pass:word', appendOnly: true },
  { username: 'prune', password: 'prune-password' },
]
const password = 'repository-password'
const signal = () => AbortSignal.timeout(60_000)
const spec = (username: string, secret: string, repo = 'site_one') => ({
  location: { kind: 'rest' as const, url: `${peer.url}/${repo}/`, username, password: secret },
  password,
})

beforeAll(async () => {
  await ensureDebianPackage('/usr/bin/restic', 'restic')
  peer = await startRestServer({ users })
})
afterAll(() => peer.stop())

test('restic makes a repository, backs up and lists snapshots as the append-only user', async () => {
  await runRestic(spec('push', 'push pass:word'), ['init'], signal())
  expect(existsSync(join(peer.folder, 'site_one', 'config'))).toBe(true)
  await runRestic(
    spec('push', 'push pass:word'),
    ['backup', '--stdin', '--stdin-filename', 'hello.txt', '--tag', 'probe'],
    signal(),
    'hello, restic\n',
  )
  const listed = await runRestic(spec('push', 'push pass:word'), ['snapshots', '--json'], signal())
  const snapshots = JSON.parse(listed.stdout) as { id: string; paths: string[] }[]
  expect(snapshots).toHaveLength(1)
  expect(snapshots[0]?.paths).toEqual(['/hello.txt'])
  // What the server keeps is a repository restic opens from the folder itself.
  const dumped = await runRestic(
    { location: { kind: 'local', name: join(peer.folder, 'site_one') }, password },
    ['dump', 'latest', '/hello.txt'],
    signal(),
  ).catch((error) => error)
  // A local location is refused on the panel; the folder is read with restic directly below.
  expect(dumped).toBeInstanceOf(ResticFailure)
  const direct = Bun.spawnSync(
    ['restic', '-r', join(peer.folder, 'site_one'), '--no-cache', 'dump', 'latest', '/hello.txt'],
    {
      env: { ...process.env, RESTIC_PASSWORD: password },
    },
  )
  expect(direct.stdout.toString()).toBe('hello, restic\n')
})

test('the append-only user cannot forget a snapshot; the full user can, and prune removes its data', async () => {
  const listed = await runRestic(spec('push', 'push pass:word'), ['snapshots', '--json'], signal())
  const [snapshot] = JSON.parse(listed.stdout) as { id: string }[]
  const refused = await runRestic(
    spec('push', 'push pass:word'),
    ['forget', '--prune', snapshot?.id as string],
    signal(),
  ).catch((error) => error)
  expect(refused).toBeInstanceOf(ResticFailure)
  expect((refused as ResticFailure).code).toBe('refused')
  expect(peer.requests.some((request) => request.method === 'DELETE' && request.status === 403)).toBe(true)

  await runRestic(spec('prune', 'prune-password'), ['forget', '--prune', snapshot?.id as string], signal())
  const after = await runRestic(spec('prune', 'prune-password'), ['snapshots', '--json'], signal())
  expect(JSON.parse(after.stdout)).toEqual([])
  // restic retries the refused delete with its backoff (about 45 s) before it gives up.
}, 120_000)

test('a wrong password is a login failure, and a stopped server is unreachable', async () => {
  const wrong = await runRestic(spec('push', 'nope'), ['snapshots'], signal()).catch((error) => error)
  expect((wrong as ResticFailure).code).toBe('login_failed')
  expect((wrong as ResticFailure).message).not.toContain('nope')
  const stopped = await startRestServer({ users })
  await stopped.stop()
  const unreachable = await runRestic(
    { location: { kind: 'rest', url: `${stopped.url}/x/`, username: null, password: null }, password },
    ['snapshots'],
    signal(),
  ).catch((error) => error)
  expect((unreachable as ResticFailure).code).toBe('unreachable')
})
