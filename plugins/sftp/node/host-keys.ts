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
      text = kind.make().private
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
