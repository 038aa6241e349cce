// How restic is given each kind of repository: the repository and every credential in its environment, none in its
// command line; an SFTP login's key and host keys in files of root's (0600) that `release` removes; names that could
// pass for options or leave the repositories' folder refused.

import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { resticAccess } from './restic-env.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'plinth-restic-env-'))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))
const password = 'repository-password'

describe('restic’s access to a repository', () => {
  test('local: a folder under the service’s repositories, its name checked', async () => {
    const access = await resticAccess({ location: { kind: 'local', name: 'site_01' }, password }, dataDir)
    expect(access.env.RESTIC_REPOSITORY).toBe(join(dataDir, 'repositories', 'site_01'))
    expect(access.env.RESTIC_PASSWORD).toBe(password)
    expect(access.env.RESTIC_CACHE_DIR).toBe(join(dataDir, 'cache'))
    expect(access.options).toEqual([])
    for (const name of ['..', '../x', '-r', 'a/b', '', '.hidden'])
      await expect(resticAccess({ location: { kind: 'local', name }, password }, dataDir)).rejects.toThrow(
        /not acceptable/,
      )
  })

  test('sftp: the key and host keys in root’s files, ssh told to trust nothing else, all removed after', async () => {
    const privateKey = '-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n'
    const location = {
      kind: 'sftp' as const,
      host: 'backup.example.net',
      port: 2222,
      username: 'site01',
      path: 'repos/site_01',
      privateKey,
      knownHosts: '[backup.example.net]:2222 ssh-ed25519 AAAAC3Nz',
    }
    const access = await resticAccess({ location, password }, dataDir)
    expect(access.env.RESTIC_REPOSITORY).toBe('sftp:site01@backup.example.net:repos/site_01')
    const command = access.options[1] ?? ''
    expect(access.options[0]).toBe('-o')
    expect(command).toStartWith('sftp.command=ssh ')
    expect(command).toContain('-o StrictHostKeyChecking=yes')
    expect(command).toContain('-o BatchMode=yes')
    expect(command).toContain('-p 2222 site01@backup.example.net -s sftp')
    expect(command).not.toContain('PRIVATE KEY')
    const keyFile = / -i (\S+) /.exec(command)?.[1] ?? ''
    const hostsFile = /UserKnownHostsFile=(\S+) /.exec(command)?.[1] ?? ''
    expect(readFileSync(keyFile, 'utf8')).toBe(privateKey)
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    expect(readFileSync(hostsFile, 'utf8')).toContain('ssh-ed25519 AAAAC3Nz')
    expect(access.secrets).toContain(privateKey)
    await access.release()
    expect(existsSync(keyFile)).toBe(false)
    for (const bad of [
      { host: '-oProxyCommand=x' },
      { username: '-l' },
      { port: 0 },
      { privateKey: 'not a key' },
    ])
      await expect(resticAccess({ location: { ...location, ...bad }, password }, dataDir)).rejects.toThrow(
        /not acceptable/,
      )
  })

  test('sftp: an IPv6 address as targets keep it (bare) is bracketed for restic, bare for ssh', async () => {
    const location = {
      kind: 'sftp' as const,
      host: '2001:db8::7',
      port: 22,
      username: 'site01',
      path: 'repos/site_01',
      privateKey: '-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n',
      knownHosts: '2001:db8::7 ssh-ed25519 AAAAC3Nz',
    }
    const access = await resticAccess({ location, password }, dataDir)
    expect(access.env.RESTIC_REPOSITORY).toBe('sftp:site01@[2001:db8::7]:repos/site_01')
    expect(access.options[1]).toContain('-p 22 site01@2001:db8::7 -s sftp')
    await access.release()
    for (const host of ['2001:db8::7 -oProxyCommand=x', ':::::::::::::::::::::::::::::::::::::::::::::::::'])
      await expect(resticAccess({ location: { ...location, host }, password }, dataDir)).rejects.toThrow(
        /not acceptable/,
      )
  })

  test('rest: the login in the repository’s URL in the environment, encoded, and counted as a secret', async () => {
    const access = await resticAccess(
      {
        location: {
          kind: 'rest',
          url: 'https://backup.example.net:8000/site_01/',
          username: 'push',
          password: 'p@ss:/w',
        },
        password,
      },
      dataDir,
    )
    expect(access.env.RESTIC_REPOSITORY).toBe(
      'rest:https://push:p%40ss%3A%2Fw@backup.example.net:8000/site_01/',
    )
    expect(access.options).toEqual([])
    expect(access.secrets).toContain('p@ss:/w')
    expect(access.secrets).toContain('p%40ss%3A%2Fw')
    await expect(
      resticAccess(
        { location: { kind: 'rest', url: 'file:///etc', username: null, password: null }, password },
        dataDir,
      ),
    ).rejects.toThrow(/not acceptable/)
  })

  test('s3: the bucket and prefix in the repository, the keys and region in AWS’s variables', async () => {
    const access = await resticAccess(
      {
        location: {
          kind: 's3',
          endpoint: 'http://127.0.0.1:9000',
          bucket: 'backups',
          prefix: '/plinth/site_01/',
          region: 'eu-central-1',
          accessKeyId: 'AKIA1',
          secretAccessKey: 'secret-key',
        },
        password,
      },
      dataDir,
    )
    expect(access.env.RESTIC_REPOSITORY).toBe('s3:http://127.0.0.1:9000/backups/plinth/site_01')
    expect(access.env.AWS_ACCESS_KEY_ID).toBe('AKIA1')
    expect(access.env.AWS_SECRET_ACCESS_KEY).toBe('secret-key')
    expect(access.env.AWS_DEFAULT_REGION).toBe('eu-central-1')
    expect(access.secrets).toContain('secret-key')
  })
})
