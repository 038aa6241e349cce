// The certificates sites are served with over HTTPS, on disk: checked before anything is named after them, written
// to `<dataDir>/tls/<site id>/<fingerprint>.pem` and `.key` (root's alone: nginx's master reads them before it drops
// to its workers), and the files a site no longer serves removed.

import { X509Certificate } from 'node:crypto'
import { chmod, mkdir, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { SiteCertificate } from '../contract.ts'
import { NodeFailure } from '../contract.ts'
import { writeFileAtomic } from './atomic-files.ts'
import type { RuntimeLayout, SiteLayout } from './layout.ts'
import type { ServedCertificate } from './server-block.ts'
import { existingKind } from './site-home.ts'
import { isSafeSiteId } from './site-spec.ts'

const fingerprintPattern = /^[0-9a-f]{64}$/
/** Most bytes a chain or a key may have: a chain of a few certificates (RSA 4096) is about 10 kB. */
const maxPemBytes = 131_072

/** Refuses a site id that could not name `<dataDir>/tls/<site id>`: a {@link NodeFailure} `unsafe_certificate`. */
export function checkCertificateSiteId(siteId: unknown): asserts siteId is string {
  if (!isSafeSiteId(siteId))
    throw new NodeFailure(
      'The node refuses the certificate: its site id is not a safe directory name',
      'unsafe_certificate',
    )
}

const looksLikePem = (text: unknown, begin: RegExp, end: RegExp): text is string =>
  typeof text === 'string' &&
  text.length <= maxPemBytes &&
  !text.includes('\0') &&
  begin.test(text) &&
  end.test(text)

/**
 * Refuses a certificate the node could not safely name files after or hand to nginx: a bad site id or fingerprint,
 * a chain or key that is not PEM, or a fingerprint that is not the chain's first certificate's. A
 * {@link NodeFailure} `unsafe_certificate`, since sending it again cannot help. Messages never quote the PEM.
 */
export function checkCertificate(siteId: unknown, certificate: SiteCertificate): void {
  checkCertificateSiteId(siteId)
  function fail(what: string): never {
    throw new NodeFailure(
      `The node refuses the certificate for site ${siteId}: ${what}`,
      'unsafe_certificate',
    )
  }
  const { fingerprint, chainPem, privateKeyPem } = (certificate ?? {}) as Partial<SiteCertificate>
  if (typeof fingerprint !== 'string' || !fingerprintPattern.test(fingerprint))
    fail('its fingerprint is not 64 lower-case hexadecimal digits')
  if (!looksLikePem(chainPem, /-----BEGIN CERTIFICATE-----/, /-----END CERTIFICATE-----/))
    fail(`its chain is not PEM certificates (at most ${maxPemBytes} bytes, no NUL)`)
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(chainPem)) fail('its chain holds a private key')
  if (
    !looksLikePem(
      privateKeyPem,
      /-----BEGIN (?:RSA |EC )?PRIVATE KEY-----/,
      /-----END (?:RSA |EC )?PRIVATE KEY-----/,
    )
  )
    fail(`its key is not an unencrypted PEM private key (at most ${maxPemBytes} bytes, no NUL)`)
  let served = ''
  try {
    served = new X509Certificate(chainPem).fingerprint256.replaceAll(':', '').toLowerCase()
  } catch {
    fail('the first certificate of its chain cannot be read')
  }
  // The files are named after the fingerprint, and report() tells it: it must be the certificate nginx serves.
  if (served !== fingerprint) fail('its fingerprint is not that of the first certificate of its chain')
}

/** The files of the certificate with `fingerprint` for the site at `paths`. */
export const certificateFiles = (paths: SiteLayout, fingerprint: string): ServedCertificate => ({
  fingerprint,
  chain: join(paths.tls, `${fingerprint}.pem`),
  key: join(paths.tls, `${fingerprint}.key`),
})

/** Makes `dir` (never a link in its place) with exactly `mode`, whatever the umask. */
async function ownDirectory(dir: string, mode: number): Promise<void> {
  await mkdir(dir, { recursive: true, mode })
  await existingKind(dir)
  await chmod(dir, mode)
}

/**
 * Writes the site's certificate and key (0600, in directories 0700, the runtime's user's), each whole or not at
 * all, beside whatever the site serves now; answers their paths.
 */
export async function writeCertificateFiles(
  layout: RuntimeLayout,
  paths: SiteLayout,
  certificate: SiteCertificate,
  signal: AbortSignal,
): Promise<ServedCertificate> {
  const files = certificateFiles(paths, certificate.fingerprint)
  await ownDirectory(layout.tls, 0o700)
  await ownDirectory(paths.tls, 0o700)
  await writeFileAtomic(files.chain, certificate.chainPem, signal, 0o600)
  await writeFileAtomic(files.key, certificate.privateKeyPem, signal, 0o600)
  return files
}

/**
 * Removes every file of a site's TLS directory `dir` but those of the certificate `keep` (what it served before,
 * temporary files of a write that never finished); with `keep` null, the directory itself.
 */
export async function removeCertificateFiles(dir: string, keep: string | null): Promise<void> {
  if (keep === null) return rm(dir, { recursive: true, force: true })
  const kept = new Set([`${keep}.pem`, `${keep}.key`])
  const names = await readdir(dir).catch(() => [] as string[])
  for (const name of names) if (!kept.has(name)) await rm(join(dir, name), { recursive: true, force: true })
}
