// Sites over HTTPS and ACME HTTP-01 answers, on this machine's nginx: the certificate a site is given is the one a
// client's handshake gets (and no other site's, for a name none has), replaced without a moment of neither, kept
// through suspension, refused by nginx without harm, removed; challenges answered on every site's domain.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { X509Certificate } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, makeCertificate } from '../../../../hosts/testing/index.ts'
import type { SiteCertificate } from '../contract.ts'
import { NodeFailure } from '../contract.ts'
import { never, processesOf, request, servingDataDir, siteSpec } from '../testing/serving.ts'
import { findBinaries } from './binaries.ts'
import { createSiteRuntime } from './create-site-runtime.ts'
import { runtimeLayout, siteLayout } from './layout.ts'
import { parseStateFile } from './site-state.ts'

const dataDir = servingDataDir('plinth-tls-')
const httpPort = freePort()
const httpsPort = freePort()
const runtime = createSiteRuntime({ dataDir, httpPort, httpsPort })
const layout = runtimeLayout(dataDir)
const site = siteSpec({
  id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9TL1',
  handle: 'tls-shop',
  domain: 'tls.example.com',
})
const held = siteSpec({
  id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9TL2',
  handle: 'tls-held',
  domain: 'held.example.com',
})
const paths = siteLayout(layout, site)
const filesOnlyDir = mkdtempSync(join(tmpdir(), 'plinth-tls-files-'))

afterAll(async () => {
  for (const each of [site, held]) await runtime.delete(each, never()).catch(() => {})
  await runtime.stop().catch(() => {})
  for (const pid of processesOf(dataDir)) process.kill(pid, 'SIGKILL')
  // A test that failed before deleting its sites leaves their Unix users: they go with the data directory.
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [name = '', , , , , home = ''] = line.split(':')
    if (!home.startsWith(`${dataDir}/`)) continue
    Bun.spawnSync(['pkill', '-KILL', '-u', name])
    Bun.spawnSync(['userdel', name])
    Bun.spawnSync(['groupdel', name])
  }
  rmSync(dataDir, { recursive: true, force: true })
  rmSync(filesOnlyDir, { recursive: true, force: true })
})

const fingerprintOf = (pem: string) =>
  new X509Certificate(pem).fingerprint256.replaceAll(':', '').toLowerCase()

/** A self-signed certificate for `domain`, as the panel sends it. */
async function certificateFor(domain: string): Promise<SiteCertificate> {
  const made = await makeCertificate({ subject: `CN=${domain}`, names: [domain] })
  return { fingerprint: fingerprintOf(made.pem), chainPem: made.pem, privateKeyPem: made.keyPem }
}

/**
 * The fingerprint of the certificate nginx presents for `serverName` (null: no name sent), or `rejected` when it
 * refuses the handshake (`ssl_reject_handshake`: an `unrecognized_name` alert); throws on anything else.
 */
async function presented(serverName: string | null): Promise<string> {
  const child = Bun.spawn(
    [
      'openssl',
      's_client',
      '-connect',
      `127.0.0.1:${httpsPort}`,
      ...(serverName ? ['-servername', serverName] : ['-noservername']),
    ],
    { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', timeout: 10_000 },
  )
  const [output, errors] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  const pem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(output)?.[0]
  if (pem) return fingerprintOf(pem)
  if (errors.includes('unrecognized name')) return 'rejected'
  throw new Error(`openssl s_client neither got a certificate nor a refusal: ${errors}`)
}

/** A GET over HTTPS for `domain` (its name sent in the handshake), whatever the certificate. */
async function https(domain: string, path = '/'): Promise<{ status: number; body: string }> {
  const child = Bun.spawn(
    [
      'curl',
      '-sk',
      '--max-time',
      '10',
      '--resolve',
      `${domain}:${httpsPort}:127.0.0.1`,
      '-w',
      '\n%{http_code}',
      `https://${domain}:${httpsPort}${path}`,
    ],
    { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' },
  )
  const output = await new Response(child.stdout).text()
  await child.exited
  const cut = output.lastIndexOf('\n')
  return { status: Number(output.slice(cut + 1)), body: output.slice(0, cut) }
}

/** `nginx -t` on the runtime's configuration, without `-q`: its exit code and what it warned of. */
function nginxCheck(): { code: number; complaints: string[] } {
  const nginx = findBinaries().nginx ?? 'nginx'
  const checked = Bun.spawnSync([nginx, '-t', '-p', layout.nginx.prefix, '-c', layout.nginx.conf])
  const complaints = checked.stderr
    .toString()
    .split('\n')
    .filter((line) => /\[(warn|emerg|alert|crit)\]/.test(line))
  return { code: checked.exitCode, complaints }
}

const mode = (path: string) => {
  const stats = statSync(path)
  return [stats.uid, (stats.mode & 0o777).toString(8)]
}
const tlsFiles = () => readdirSync(paths.tls).sort()
const challengeUrl = (token: string) => `/.well-known/acme-challenge/${token}`

let first: SiteCertificate
let second: SiteCertificate

beforeAll(async () => {
  ;[first, second] = await Promise.all([certificateFor(site.domain), certificateFor(site.domain)])
  await runtime.start()
  await runtime.provision(site, never())
  await runtime.provision(held, never())
  await runtime.suspend(held, never())
})

describe('the HTTPS port', () => {
  test('nginx takes the configuration without a warning (Debian 12 has nginx 1.22)', () => {
    expect(nginxCheck()).toEqual({ code: 0, complaints: [] })
  })

  test('refuses the handshake for a name no site serves over HTTPS, and without a name, rather than show another site’s certificate', async () => {
    expect(await presented('unknown.example.com')).toBe('rejected')
    expect(await presented(null)).toBe('rejected')
    // A site without a certificate is on plain HTTP only.
    expect(await presented(site.domain)).toBe('rejected')
    expect((await request(httpPort, site.domain)).status).toBe(200)
  })
})

describe('a site’s certificate', () => {
  test('installed, it is exactly the certificate the handshake for the site’s name presents, and the site’s page is served over HTTPS; the key is root’s alone', async () => {
    await runtime.installCertificate(site.id, first, never())
    expect(await presented(site.domain)).toBe(first.fingerprint)
    const page = await https(site.domain)
    expect(page.status).toBe(200)
    expect(page.body).toContain('<h1>tls.example.com</h1>')
    // Plain HTTP serves as before: no redirect.
    expect((await request(httpPort, site.domain)).status).toBe(200)
    expect(await presented('unknown.example.com')).toBe('rejected')

    const uid = process.getuid?.() ?? 0
    expect(mode(layout.tls)).toEqual([uid, '700'])
    expect(mode(paths.tls)).toEqual([uid, '700'])
    expect(mode(join(paths.tls, `${first.fingerprint}.key`))).toEqual([uid, '600'])
    expect(mode(join(paths.tls, `${first.fingerprint}.pem`))).toEqual([uid, '600'])
    expect(readFileSync(join(paths.tls, `${first.fingerprint}.key`), 'utf8')).toBe(first.privateKeyPem)
    expect(await runtime.report(site)).toMatchObject({ state: 'active', certificate: first.fingerprint })
    expect(nginxCheck()).toEqual({ code: 0, complaints: [] })
  })

  test('a second certificate replaces it: every handshake meanwhile gets the one or the other, then the second alone, and the first’s files are gone', async () => {
    const seen = new Set<string>()
    let installing = true
    const probing = (async () => {
      while (installing) seen.add(await presented(site.domain))
    })()
    await runtime.installCertificate(site.id, second, never())
    installing = false
    await probing
    expect([...seen].every((each) => each === first.fingerprint || each === second.fingerprint)).toBe(true)
    expect(await presented(site.domain)).toBe(second.fingerprint)
    expect(tlsFiles()).toEqual([`${second.fingerprint}.key`, `${second.fingerprint}.pem`])
  })

  test('installing the same certificate again changes nothing, not even the server block', async () => {
    const before = statSync(paths.serverBlock).mtimeMs
    await runtime.installCertificate(site.id, second, never())
    expect(statSync(paths.serverBlock).mtimeMs).toBe(before)
    expect(await presented(site.domain)).toBe(second.fingerprint)
  })

  test('a key that is not the certificate’s is refused by nginx: the site goes on with the certificate it had, and the new files are gone', async () => {
    const other = await certificateFor(site.domain)
    const mismatched = { ...other, privateKeyPem: first.privateKeyPem }
    const refused = runtime.installCertificate(site.id, mismatched, never())
    await expect(refused).rejects.toMatchObject({ code: 'nginx_config_refused' })
    const message = ((await refused.catch((error: Error) => error)) as Error).message
    expect(message).toContain('key values mismatch')
    expect(message).not.toContain(first.privateKeyPem.split('\n')[1])
    expect(await presented(site.domain)).toBe(second.fingerprint)
    expect(tlsFiles()).toEqual([`${second.fingerprint}.key`, `${second.fingerprint}.pem`])
    expect(await runtime.report(site)).toMatchObject({ certificate: second.fingerprint })
  })

  test('it is kept while the site is updated, suspended (HTTPS answers 503 too) and unsuspended', async () => {
    await runtime.update(site, never())
    expect(await presented(site.domain)).toBe(second.fingerprint)
    await runtime.suspend(site, never())
    expect(await presented(site.domain)).toBe(second.fingerprint)
    const suspended = await https(site.domain)
    expect(suspended.status).toBe(503)
    expect(suspended.body).toContain('This site is suspended.')
    await runtime.unsuspend(site, never())
    expect(await presented(site.domain)).toBe(second.fingerprint)
    expect((await https(site.domain)).status).toBe(200)
    expect(parseStateFile(readFileSync(paths.state, 'utf8'))?.certificate).toBe(second.fingerprint)
  })

  test('removed, the handshake for the site’s name is refused and its files are gone; plain HTTP serves on; removing again is fine', async () => {
    await runtime.removeCertificate(site.id, never())
    expect(await presented(site.domain)).toBe('rejected')
    expect(existsSync(paths.tls)).toBe(false)
    expect((await request(httpPort, site.domain)).status).toBe(200)
    expect(await runtime.report(site)).toMatchObject({ certificate: null })
    await runtime.removeCertificate(site.id, never())
    await runtime.removeCertificate('site_01JDQ3V6Y4T1ZK0M2N5P7R9NO1', never())
  })

  test('its redirects and headers outlive a certificate installed and removed (kept beside state.json, root’s), and go when the panel drops them', async () => {
    const serving = {
      redirects: [{ from: '/old', match: 'exact' as const, to: '/new', code: 301 as const }],
      headers: [{ name: 'X-Frame-Options', value: 'DENY' }],
    }
    const ruled = { ...site, serving }
    await runtime.update(ruled, never())
    const rules = () => request(httpPort, site.domain, '/old')
    expect((await rules()).status).toBe(301)
    expect(mode(paths.servingRules)).toEqual([process.getuid?.() ?? 0, '600'])
    // A block rewritten from the site's record alone, as a certificate's installation does, keeps them.
    await runtime.installCertificate(site.id, first, never())
    const redirected = await rules()
    expect(redirected.status).toBe(301)
    expect(redirected.headers.get('location')).toEndWith('/new')
    expect((await request(httpPort, site.domain)).headers.get('x-frame-options')).toBe('DENY')
    expect(readFileSync(paths.serverBlock, 'utf8')).toContain('X-Frame-Options')
    await runtime.removeCertificate(site.id, never())
    expect((await rules()).status).toBe(301)
    await runtime.update(site, never())
    expect((await rules()).status).toBe(404)
    expect(existsSync(paths.servingRules)).toBe(false)
  })

  test('a site not on the node (yet) fails the installation to be tried again: a plain Error, not a NodeFailure', async () => {
    const missing = runtime.installCertificate('site_01JDQ3V6Y4T1ZK0M2N5P7R9NO1', first, never())
    await expect(missing).rejects.toThrow(/is not on this node/)
    await expect(missing).rejects.not.toBeInstanceOf(NodeFailure)
  })

  test('bad input is a NodeFailure unsafe_certificate that quotes no key and touches nothing', async () => {
    const keyLine = first.privateKeyPem.split('\n')[1] ?? ''
    const cases: [string, SiteCertificate][] = [
      ['../escape', first],
      [site.id, { ...first, fingerprint: first.fingerprint.toUpperCase() }],
      [site.id, { ...first, fingerprint: '../../etc/passwd' }],
      [site.id, { ...first, chainPem: 'not a certificate' }],
      [site.id, { ...first, privateKeyPem: 'not a key' }],
      [site.id, { ...first, privateKeyPem: `${first.privateKeyPem}\0` }],
      [
        site.id,
        { ...first, privateKeyPem: first.privateKeyPem.replaceAll('PRIVATE KEY', 'ENCRYPTED PRIVATE KEY') },
      ],
      [site.id, { ...first, chainPem: `${first.chainPem}${first.privateKeyPem}` }],
      // The files are named after the fingerprint: it must be the chain's first certificate's.
      [site.id, { ...first, fingerprint: second.fingerprint }],
    ]
    for (const [siteId, certificate] of cases) {
      const refused = runtime.installCertificate(siteId, certificate, never())
      await expect(refused).rejects.toBeInstanceOf(NodeFailure)
      await expect(refused).rejects.toMatchObject({ code: 'unsafe_certificate' })
      expect(((await refused.catch((error: Error) => error)) as Error).message).not.toContain(keyLine)
    }
    await expect(runtime.removeCertificate('../escape', never())).rejects.toMatchObject({
      code: 'unsafe_certificate',
    })
    expect(existsSync(paths.tls)).toBe(false)
  })

  test('deleting the site removes its certificate with it', async () => {
    const other = siteSpec({
      id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9TL3',
      handle: 'tls-gone',
      domain: 'gone.example.com',
    })
    await runtime.provision(other, never())
    const certificate = await certificateFor(other.domain)
    await runtime.installCertificate(other.id, certificate, never())
    expect(await presented(other.domain)).toBe(certificate.fingerprint)
    await runtime.delete(other, never())
    expect(await presented(other.domain)).toBe('rejected')
    expect(existsSync(siteLayout(layout, other).tls)).toBe(false)
  })
})

describe('ACME HTTP-01 challenges', () => {
  const challenge = {
    token: 'Zx3_q-9TfS1mYv2KpLw0aB7c',
    keyAuthorization: 'Zx3_q-9TfS1mYv2KpLw0aB7c.n1H-4rT_thumb',
  }

  test('an answer is served as plain text on every site’s domain, a suspended site’s included, until it is removed', async () => {
    await runtime.putChallenge(challenge, never())
    await runtime.putChallenge(challenge, never())
    for (const domain of [site.domain, held.domain]) {
      const answer = await request(httpPort, domain, challengeUrl(challenge.token))
      expect(answer.status).toBe(200)
      expect(answer.headers.get('content-type')).toBe('text/plain')
      expect(await answer.text()).toBe(challenge.keyAuthorization)
    }
    // The suspended site answers 503 for everything else.
    expect((await request(httpPort, held.domain)).status).toBe(503)
    expect((await request(httpPort, site.domain, challengeUrl('unknown'))).status).toBe(404)
    expect(mode(join(layout.acme.challenges, challenge.token))).toEqual([process.getuid?.() ?? 0, '644'])
    expect(mode(layout.acme.challenges)[1]).toBe('755')

    await runtime.removeChallenge(challenge.token, never())
    await runtime.removeChallenge(challenge.token, never())
    for (const domain of [site.domain, held.domain])
      expect((await request(httpPort, domain, challengeUrl(challenge.token))).status).toBe(404)
  })

  test('bad tokens and key authorizations are NodeFailures unsafe_challenge', async () => {
    for (const bad of [
      { ...challenge, token: '../../sites' },
      { ...challenge, token: '' },
      { ...challenge, token: 'x'.repeat(129) },
      { ...challenge, keyAuthorization: 'a b' },
      { ...challenge, keyAuthorization: 'a\nb' },
    ])
      await expect(runtime.putChallenge(bad, never())).rejects.toMatchObject({ code: 'unsafe_challenge' })
    await expect(runtime.removeChallenge('a/b', never())).rejects.toBeInstanceOf(NodeFailure)
  })
})

describe('files only', () => {
  test('the certificate’s files and the HTTPS server block are written, nothing is reloaded', async () => {
    const files = createSiteRuntime({ dataDir: filesOnlyDir, httpPort, httpsPort, filesOnly: true })
    const spec = siteSpec({ id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9TF1', handle: 'tls-files' })
    await files.provision(spec, never())
    await files.installCertificate(spec.id, first, never())
    const filesPaths = siteLayout(runtimeLayout(filesOnlyDir), spec)
    const block = readFileSync(filesPaths.serverBlock, 'utf8')
    expect(block).toContain(`listen ${httpsPort} ssl;`)
    expect(block).toContain(`ssl_certificate_key "${join(filesPaths.tls, `${first.fingerprint}.key`)}";`)
    expect(readdirSync(filesPaths.tls).sort()).toEqual([
      `${first.fingerprint}.key`,
      `${first.fingerprint}.pem`,
    ])
    await files.putChallenge({ token: 'tok', keyAuthorization: 'tok.thumb' }, never())
    expect(readFileSync(join(runtimeLayout(filesOnlyDir).acme.challenges, 'tok'), 'utf8')).toBe('tok.thumb')
    expect(existsSync(runtimeLayout(filesOnlyDir).nginx.pid)).toBe(false)
  })

  test('a state file written before certificates existed reads as serving none', () => {
    const older = { siteId: site.id, handle: 'x', domain: 'x.example.com', state: 'active', unixUser: null }
    expect(parseStateFile(JSON.stringify(older))?.certificate).toBeNull()
  })
})
