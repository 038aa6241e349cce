// Where the panel's restic gets its secrets: only through its environment and a 0600 key file, never its arguments.

import { expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { RepositorySpec } from './node/protocol.ts'
import { repositoryUrl, resticInvocation } from './panel-restic.ts'

const password = 'the repository password'
const specs: Record<string, RepositorySpec> = {
  sftp: {
    location: {
      kind: 'sftp',
      host: 'backup.example.net',
      port: 2222,
      username: 'plinth',
      path: '/srv/repos/site_1',
      privateKey: '-----BEGIN OPENSSH PRIVATE KEY-----\nsecret key body\n-----END OPENSSH PRIVATE KEY-----',
      knownHosts: '[backup.example.net]:2222 ssh-ed25519 AAAA',
    },
    password,
  },
  rest: {
    location: {
      kind: 'rest',
      url: 'https://b.example:8000/site_1/',
      username: 'push',
      password: 'p@ss:w%rd',
    },
    password,
  },
  s3: {
    location: {
      kind: 's3',
      endpoint: 'https://s3.example',
      bucket: 'backups',
      prefix: 'plinth/site_1',
      region: 'eu-central-1',
      accessKeyId: 'AKID',
      secretAccessKey: 'the secret access key',
    },
    password,
  },
}

for (const [kind, spec] of Object.entries(specs)) {
  test(`${kind}: the password and credentials are in the environment, none in the arguments`, () => {
    const folder = mkdtempSync(join(tmpdir(), 'plinth-restic-test-'))
    try {
      const { options, env } = resticInvocation(spec, folder)
      const argv = options.join(' ')
      for (const secret of [
        password,
        'secret key body',
        'p@ss:w%rd',
        'p%40ss%3Aw%25rd',
        'the secret access key',
      ])
        expect(argv).not.toContain(secret)
      expect(env.RESTIC_PASSWORD).toBe(password)
      expect(env.RESTIC_REPOSITORY).toBe(repositoryUrl(spec.location))
      expect(env.HOME).toBe(folder)
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })
}

test('an SFTP key is written 0600 for ssh, which trusts only the pinned host keys', () => {
  const folder = mkdtempSync(join(tmpdir(), 'plinth-restic-test-'))
  try {
    const { options } = resticInvocation(specs.sftp as RepositorySpec, folder)
    expect(statSync(join(folder, 'key')).mode & 0o777).toBe(0o600)
    expect(readFileSync(join(folder, 'key'), 'utf8')).toContain('secret key body')
    expect(readFileSync(join(folder, 'known_hosts'), 'utf8')).toBe(
      '[backup.example.net]:2222 ssh-ed25519 AAAA\n',
    )
    const command = options[1] as string
    for (const option of [
      'StrictHostKeyChecking=yes',
      'GlobalKnownHostsFile=/dev/null',
      'BatchMode=yes',
      '-F /dev/null',
    ])
      expect(command).toContain(option)
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
})

test('repository URLs: an absolute SFTP path, REST credentials percent-encoded, an S3 prefix in the bucket', () => {
  expect(repositoryUrl((specs.sftp as RepositorySpec).location)).toBe(
    'sftp://plinth@backup.example.net:2222//srv/repos/site_1',
  )
  expect(repositoryUrl((specs.rest as RepositorySpec).location)).toBe(
    'rest:https://push:p%40ss%3Aw%25rd@b.example:8000/site_1/',
  )
  expect(repositoryUrl((specs.s3 as RepositorySpec).location)).toBe(
    's3:https://s3.example/backups/plinth/site_1',
  )
  const env = resticInvocation(specs.s3 as RepositorySpec, tmpdir()).env
  expect([env.AWS_ACCESS_KEY_ID, env.AWS_SECRET_ACCESS_KEY]).toEqual(['AKID', 'the secret access key'])
})
