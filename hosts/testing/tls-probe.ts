// What a TLS server presents, asked the way a client asks: `openssl s_client` with SNI.

import { X509Certificate } from 'node:crypto'

/**
 * The SHA-256 fingerprint (`AB:CD:…`) of the certificate presented at `127.0.0.1:port` for `servername`, or null
 * when the handshake is refused.
 */
export function presentedFingerprint(port: number, servername: string): string | null {
  const result = Bun.spawnSync(
    ['openssl', 's_client', '-connect', `127.0.0.1:${port}`, '-servername', servername],
    { stdin: 'ignore', timeout: 15_000 },
  )
  const pem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(
    result.stdout.toString(),
  )?.[0]
  return pem ? new X509Certificate(pem).fingerprint256 : null
}
