// Debian's pebble (a small ACME CA for tests) on loopback, with pebble-challtestsrv as its DNS: the names the test
// adds resolve to 127.0.0.1, every other name to nothing. Pebble checks HTTP-01 answers on `httpPort`.

import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, makeCertificate } from '../../../hosts/testing/index.ts'

/** A running pebble. */
export interface Pebble {
  readonly directoryUrl: string
  /** The CA of pebble's own HTTPS (not of the certificates it issues): trust it for the directory. */
  readonly caPem: string
  /** Makes `host` resolve to 127.0.0.1 for pebble. */
  resolve(host: string): Promise<void>
  stop(): void
}

function requireBinary(name: string): void {
  if (Bun.which(name) === null)
    throw new Error(
      `${name} is not installed: the ACME tests need Debian's pebble package (.ci/ensure-site-stack installs it)`,
    )
}

/** Starts pebble validating HTTP-01 challenges on `httpPort`; resolves once its directory answers. */
export async function startPebble(httpPort: number): Promise<Pebble> {
  requireBinary('pebble')
  requireBinary('pebble-challtestsrv')
  const dir = mkdtempSync(join(tmpdir(), 'plinth-pebble-'))
  const ca = await makeCertificate({ subject: 'CN=Pebble test listener CA', ca: true })
  const listener = await makeCertificate({
    subject: 'CN=localhost',
    issuer: ca,
    names: ['localhost'],
    notAfter: new Date(Date.now() + 7 * 86_400_000),
  })
  writeFileSync(join(dir, 'cert.pem'), listener.pem)
  writeFileSync(join(dir, 'key.pem'), listener.keyPem)
  const [acmePort, managementPort, dnsPort, dnsManagementPort] = [
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]
  writeFileSync(
    join(dir, 'pebble.json'),
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${acmePort}`,
        managementListenAddress: `127.0.0.1:${managementPort}`,
        certificate: join(dir, 'cert.pem'),
        privateKey: join(dir, 'key.pem'),
        httpPort,
        tlsPort: freePort(),
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
      },
    }),
  )
  const children: ChildProcess[] = []
  const output: string[] = []
  const run = (argv: string[], env: Record<string, string> = {}) => {
    const child = spawn(argv[0] ?? '', argv.slice(1), { env: { ...process.env, ...env } })
    child.stdout?.on('data', (chunk) => output.push(String(chunk)))
    child.stderr?.on('data', (chunk) => output.push(String(chunk)))
    children.push(child)
  }
  run([
    'pebble-challtestsrv',
    '-http01',
    '',
    '-https01',
    '',
    '-tlsalpn01',
    '',
    '-dns01',
    `127.0.0.1:${dnsPort}`,
    '-management',
    `127.0.0.1:${dnsManagementPort}`,
    '-defaultIPv4',
    '',
    '-defaultIPv6',
    '',
  ])
  // No sleeps between validation attempts, and every nonce honoured: the run is deterministic and quick.
  run(['pebble', '-config', join(dir, 'pebble.json'), '-dnsserver', `127.0.0.1:${dnsPort}`, '-strict'], {
    PEBBLE_VA_NOSLEEP: '1',
    PEBBLE_WFE_NONCEREJECT: '0',
    PEBBLE_AUTHZREUSE: '0',
  })
  const stop = () => {
    for (const child of children) child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
  const directoryUrl = `https://localhost:${acmePort}/dir`
  const deadline = Date.now() + 15_000
  for (;;) {
    try {
      const answer = await fetch(directoryUrl, { tls: { ca: ca.pem } })
      const management = await fetch(`http://127.0.0.1:${dnsManagementPort}/`).catch(() => null)
      if (answer.ok && management) break
    } catch {}
    if (Date.now() > deadline) {
      stop()
      throw new Error(`pebble did not start:\n${output.join('')}`)
    }
    await Bun.sleep(100)
  }
  return {
    directoryUrl,
    caPem: ca.pem,
    async resolve(host) {
      const response = await fetch(`http://127.0.0.1:${dnsManagementPort}/add-a`, {
        method: 'POST',
        body: JSON.stringify({ host: `${host}.`, addresses: ['127.0.0.1'] }),
      })
      if (!response.ok) throw new Error(`challtestsrv refused ${host}: ${response.status}`)
    },
    stop,
  }
}
