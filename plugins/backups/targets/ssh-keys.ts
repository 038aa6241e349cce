// SSH keys of an SFTP target: its login's private key checked with ssh-keygen, the server's host keys read with
// ssh-keyscan when staff give none (pinned from then on), and their SHA-256 fingerprints as ssh shows them.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const hostKeyLine =
  /^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp256|ecdsa-sha2-nistp384|ecdsa-sha2-nistp521|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com) ([A-Za-z0-9+/]+={0,2})$/

/** `<type> <base64>` of a host key line (a comment or a leading host name dropped), or null when it is not one. */
export function hostKeyOf(line: string): string | null {
  const words = line.trim().split(/\s+/)
  const start = words.findIndex((word, index) => hostKeyLine.test(`${word} ${words[index + 1] ?? ''}`))
  const match = start < 0 ? null : hostKeyLine.exec(`${words[start]} ${words[start + 1]}`)
  if (!match) return null
  // The blob names its own type first: a key pasted under another type's name is not that key.
  const blob = Buffer.from(match[2] as string, 'base64')
  const length = blob.length >= 4 ? blob.readUInt32BE(0) : -1
  if (length <= 0 || blob.length < 4 + length || blob.subarray(4, 4 + length).toString() !== match[1])
    return null
  return match[0]
}

/** `SHA256:…` of a `<type> <base64>` key, as `ssh-keygen -l` and ssh's prompts show it. */
export function fingerprintOf(key: string): string {
  const blob = Buffer.from(key.split(' ')[1] ?? '', 'base64')
  return `SHA256:${new Bun.CryptoHasher('sha256').update(blob).digest('base64').replace(/=+$/, '')}`
}

/** The host keys the server at `host`:`port` shows (`<type> <base64>` each); empty when it could not be reached. */
export async function scanHostKeys(host: string, port: number, signal: AbortSignal): Promise<string[]> {
  const child = Bun.spawn(['ssh-keyscan', '-T', '10', '-p', String(port), '--', host], {
    stdout: 'pipe',
    stderr: 'ignore',
  })
  const abort = () => child.kill('SIGTERM')
  signal.addEventListener('abort', abort, { once: true })
  try {
    const [output] = await Promise.all([new Response(child.stdout).text(), child.exited])
    const keys = output
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'))
      .map(hostKeyOf)
      .filter((key): key is string => key !== null)
    return [...new Set(keys)].sort()
  } finally {
    signal.removeEventListener('abort', abort)
  }
}

/**
 * Whether `privateKey` is an unencrypted private key ssh can use: the text's shape, then ssh-keygen deriving its
 * public key with an empty passphrase (an encrypted key, or garbage between the armour lines, fails).
 */
export async function usablePrivateKey(privateKey: string): Promise<boolean> {
  if (
    !/^-----BEGIN (OPENSSH|RSA|EC) PRIVATE KEY-----\r?\n[\s\S]+\r?\n-----END \1 PRIVATE KEY-----\s*$/.test(
      privateKey.trim(),
    )
  )
    return false
  const folder = mkdtempSync(join(tmpdir(), 'plinth-key-'))
  try {
    const file = join(folder, 'key')
    writeFileSync(file, `${privateKey.trim()}\n`, { mode: 0o600 })
    const child = Bun.spawn(['ssh-keygen', '-y', '-P', '', '-f', file], {
      stdout: 'ignore',
      stderr: 'ignore',
      stdin: 'ignore',
    })
    return (await child.exited) === 0
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}
