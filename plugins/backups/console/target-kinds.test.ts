import { expect, test } from 'bun:test'
import { targetBody } from './target-kinds.ts'

const form = (fields: Record<string, string>) => {
  const data = new FormData()
  for (const [name, value] of Object.entries(fields)) data.set(name, value)
  return data
}

test('a kind’s fields go into the body as typed: trimmed but secrets, numbers and lists as such, empty ones left out', () => {
  const data = form({
    host: ' backup.example.net ',
    port: '2222',
    username: 'plinth',
    path: '/srv/backups',
    privateKey: '-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n',
    hostKeys: 'ssh-ed25519 AAAA1\n\n  ssh-rsa AAAA2  \n',
    // Another kind's field, left in the form: not sent.
    url: 'https://rest.example.net/',
  })
  expect(targetBody('sftp', data)).toEqual({
    host: 'backup.example.net',
    port: 2222,
    username: 'plinth',
    path: '/srv/backups',
    privateKey: '-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n',
    hostKeys: ['ssh-ed25519 AAAA1', 'ssh-rsa AAAA2'],
  })
  expect(
    targetBody('rest', form({ url: 'http://127.0.0.1:8000', password: ' spaced ', prunePassword: '' })),
  ).toEqual({
    url: 'http://127.0.0.1:8000',
    password: ' spaced ',
  })
  expect(targetBody('local', data)).toEqual({})
})
