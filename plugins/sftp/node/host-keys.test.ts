// Host keys: a key ssh2 cannot read back is never kept (its Ed25519 generator under Bun sometimes writes one).

import { expect, test } from 'bun:test'
import { utils } from 'ssh2'
import { newKey } from './host-keys.ts'

test('a generated key ssh2 cannot read is made again', () => {
  const good = utils.generateKeyPairSync('ed25519')
  // Like what the generator sometimes writes: an OpenSSH key ssh2 calls malformed.
  const broken = { private: '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n' }
  expect(utils.parseKey(broken.private)).toBeInstanceOf(Error)
  const made = [broken, good]
  let calls = 0
  expect(newKey(() => made[calls++] as { private: string })).toBe(good.private)
  expect(calls).toBe(2)
  expect(() => newKey(() => broken)).toThrow('ssh2 made no host key it could read in 20 attempts')
})
