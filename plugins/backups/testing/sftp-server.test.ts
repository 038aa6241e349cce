// The SFTP peer against the real restic through the panel's runner: a repository made and backed up to with the
// user's key and the pinned host key; another key, another host key and a stopped server each fail with their code.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { RepositorySpec } from '../node/protocol.ts'
import { initOrOpen, ResticFailure, runRestic } from '../panel-restic.ts'
import { ensureDebianPackage } from './debian-packages.ts'
import { generateSshKey, type SftpPeer, startSftpServer } from './sftp-server.ts'

let peer: SftpPeer
const password = 'repository-password'
const signal = () => AbortSignal.timeout(60_000)
const spec = (
  changes: Partial<{ privateKey: string; knownHosts: string; port: number }> = {},
): RepositorySpec => ({
  location: {
    kind: 'sftp',
    host: peer.host,
    port: peer.port,
    username: peer.username,
    path: `${peer.path}/site_one`,
    privateKey: peer.privateKey,
    knownHosts: peer.knownHosts,
    ...changes,
  },
  password,
})
const failure = async (run: Promise<unknown>) => {
  const error = await run.then(
    () => null,
    (caught) => caught,
  )
  expect(error).toBeInstanceOf(ResticFailure)
  return error as ResticFailure
}

beforeAll(async () => {
  await ensureDebianPackage('/usr/bin/restic', 'restic')
  peer = await startSftpServer()
})
afterAll(() => peer.close())

test('restic makes a repository in the jailed user’s folder and backs up to it', async () => {
  expect(await initOrOpen(spec(), signal())).toEqual({ created: true })
  expect(existsSync(join(peer.folder, 'site_one', 'config'))).toBe(true)
  expect(await initOrOpen(spec(), signal())).toEqual({ created: false })
  await runRestic(spec(), ['backup', '--stdin', '--stdin-filename', 'a.txt'], signal(), 'over sftp\n')
  const dumped = await runRestic(spec(), ['dump', 'latest', '/a.txt'], signal())
  expect(dumped.stdout).toBe('over sftp\n')
})

test('another key is a login failure, another host key a mismatch, a wrong password its own', async () => {
  const other = await generateSshKey()
  expect((await failure(initOrOpen(spec({ privateKey: other.privateKey }), signal()))).code).toBe(
    'login_failed',
  )
  const foreign = (await generateSshKey()).publicKey.split(' ').slice(0, 2).join(' ')
  const mismatch = await failure(
    initOrOpen(spec({ knownHosts: `[127.0.0.1]:${peer.port} ${foreign}` }), signal()),
  )
  expect(mismatch.code).toBe('host_key_mismatch')
  const wrong = await failure(initOrOpen({ ...spec(), password: 'not it' }, signal()))
  expect(wrong.code).toBe('wrong_password')
})

test('a stopped server is unreachable until it is started again', async () => {
  await peer.refuse()
  expect((await failure(initOrOpen(spec(), signal()))).code).toBe('unreachable')
  await peer.resume()
  expect(await initOrOpen(spec(), signal())).toEqual({ created: false })
})
