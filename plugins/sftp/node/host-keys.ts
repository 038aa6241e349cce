// The SSH server's host keys: made once (Ed25519 and ECDSA P-256), kept in the service's folder (0600, root's), so
// clients see the same fingerprints across restarts.

import { chmod, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { utils } from 'ssh2'
import { fingerprintOf } from '../keys.ts'

/** The server's host keys, private (OpenSSH format) and their fingerprints. */
export interface HostKeys {
  readonly privateKeys: readonly string[]
  readonly fingerprints: readonly string[]
}

const kinds = [
  { file: 'host_ed25519_key', make: () => utils.generateKeyPairSync('ed25519') },
  { file: 'host_ecdsa_key', make: () => utils.generateKeyPairSync('ecdsa', { bits: 256 }) },
] as const

/**
 * A new private key that ssh2 reads back. Under Bun, ssh2's Ed25519 generator writes about one key in 300 with a
 * 31-byte public key (a leading zero byte dropped), which ssh2 itself then refuses: such a key is made again.
 */
export function newKey(make: () => { private: string }): string {
  for (let attempt = 0; attempt < 20; attempt++) {
    const made = make().private
    const parsed = utils.parseKey(made)
    if (!(parsed instanceof Error) && !Array.isArray(parsed)) return made
  }
  throw new Error('ssh2 made no host key it could read in 20 attempts')
}

/** The host keys in `dir`, each made the first time. */
export async function loadHostKeys(dir: string): Promise<HostKeys> {
  const privateKeys: string[] = []
  const fingerprints: string[] = []
  for (const kind of kinds) {
    const path = join(dir, kind.file)
    let text: string
    try {
      text = await readFile(path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      text = newKey(kind.make)
      // `wx`: two starts at once keep the first one's key.
      await writeFile(path, text, { mode: 0o600, flag: 'wx' }).catch(
        async (failure: NodeJS.ErrnoException) => {
          if (failure.code !== 'EEXIST') throw failure
          text = await readFile(path, 'utf8')
        },
      )
    }
    await chmod(path, 0o600)
    const parsed = utils.parseKey(text)
    if (parsed instanceof Error || Array.isArray(parsed))
      throw new Error(`The host key ${path} does not parse`)
    privateKeys.push(text)
    fingerprints.push(fingerprintOf(parsed.getPublicSSH()))
  }
  return { privateKeys, fingerprints }
}
