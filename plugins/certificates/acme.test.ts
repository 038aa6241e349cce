// ACME certificates against Debian's pebble on loopback, served by the local node's real nginx: issued for two
// sites' domains with the HTTP-01 answers served by the node, attached and presented over TLS; renewed when the
// expiry check finds it due (and on request), the sites then presenting the new one; a domain with no DNS fails
// with the CA's problem on the certificate, the job and an event.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createTestPanel,
  freePort,
  presentedFingerprint,
  removeNodeLeftovers,
  type TestPanel,
} from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import { sitesPlugin } from '../sites/index.ts'
import type { Certificate, SiteCertificate } from './contract.ts'
import { certificatesPlugin } from './index.ts'
import { type ApiClient, apiClientOf } from './testing/api-client.ts'
import { type Pebble, startPebble } from './testing/pebble.ts'

const day = 86_400_000
const folder = mkdtempSync(join(tmpdir(), 'plinth-acme-'))
const sitesDir = join(folder, 'sites')
// nginx's workers and the sites' users pass through to the sites' homes.
chmodSync(folder, 0o711)
const httpPort = freePort()
const httpsPort = freePort()
let clock: Date | null = null
let pebble: Pebble
let tp: TestPanel
let api: ApiClient

beforeAll(async () => {
  pebble = await startPebble(httpPort)
  tp = await createTestPanel({
    standard: false,
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      nodesPlugin({
        dataDir: join(folder, 'panel'),
        localServing: { dataDir: sitesDir, httpPort, httpsPort },
      }),
      sitesPlugin(),
      certificatesPlugin({
        acme: { directoryUrl: pebble.directoryUrl, trustedCaPem: pebble.caPem, email: 'ops@example.com' },
        expiryCheckIntervalMs: 200,
        now: () => clock ?? new Date(),
      }),
    ],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  api = apiClientOf(tp, await tp.token())
}, 60_000)
afterAll(async () => {
  await tp?.panel.close()
  pebble?.stop()
  // The local node's nginx and PHP-FPM outlive the panel (they serve on while it restarts), and the sites' users and
  // groups the folder: all removed here.
  removeNodeLeftovers(sitesDir)
  rmSync(folder, { recursive: true, force: true })
})

const call = (method: string, path: string, body?: unknown) => api.call(method, path, body)
const json = <T>(response: Response, status: number) => api.json<T>(response, status)
const waitFor = <T>(what: string, probe: () => Promise<T>) => api.waitFor(what, probe, 30_000)

/** The certificate once its issuance job has ended (`active` with `serial` other than `previousSerial`, or failed). */
function issued(id: string, previousSerial: string | null = null): Promise<Certificate> {
  return waitFor(`certificate ${id}`, async () => {
    const now = await json<Certificate>(await call('GET', `/certificates/${id}`), 200)
    if (now.status === 'failed') return now
    return now.serial !== null && now.serial !== previousSerial && now.jobId !== null ? now : null
  })
}

async function installed(siteId: string, fingerprint: string | null): Promise<SiteCertificate> {
  return waitFor(`certificate of ${siteId}`, async () => {
    const now = await json<SiteCertificate>(await call('GET', `/sites/${siteId}/certificate`), 200)
    if (now.status === 'failed') throw new Error(`installing failed: ${JSON.stringify(now)}`)
    return now.status === 'installed' && now.installedFingerprint === fingerprint ? now : null
  })
}

const eventsOf = (kind: string) => api.eventsOf(kind)

describe('an ACME certificate', () => {
  test('is issued through pebble, served, and renewed when due and on request', async () => {
    const customerId = (
      await json<{ id: string }>(await call('POST', '/customers', { name: 'Acme Co' }), 201)
    ).id
    const shop = await api.newSite(customerId, 'shop.acme.test')
    const blog = await api.newSite(customerId, 'blog.acme.test')
    await pebble.resolve('shop.acme.test')
    await pebble.resolve('blog.acme.test')

    const ordered = await json<Certificate>(
      await call('POST', '/certificates', {
        customerId,
        source: 'acme',
        domains: ['shop.acme.test', 'blog.acme.test'],
      }),
      201,
    )
    const orderedAt = performance.now()
    const certificate = await issued(ordered.id)
    console.log(
      `ACME order to issued certificate (pebble, 2 names): ${(performance.now() - orderedAt).toFixed(0)} ms`,
    )
    expect(certificate).toMatchObject({
      status: 'active',
      source: 'acme',
      names: ['shop.acme.test', 'blog.acme.test'],
      acme: { domains: ['shop.acme.test', 'blog.acme.test'], lastError: null },
      chainStatus: 'complete',
      keyType: 'ec-p256',
    })
    expect(certificate.issuer).toContain('Pebble Intermediate')
    expect((await eventsOf('certificate.issued')).map((event) => event.id)).toContain(certificate.id)
    const job = await json<{ status: string; result: Record<string, unknown> }>(
      await call('GET', `/jobs/${certificate.jobId}`),
      200,
    )
    expect(job).toMatchObject({
      status: 'succeeded',
      result: { outcome: 'issued', serial: certificate.serial },
    })

    // Both sites serve it: the node presents exactly it for each name.
    for (const site of [shop, blog])
      await json(await call('PUT', `/sites/${site.id}/certificate`, { certificateId: certificate.id }), 202)
    const attachedAt = performance.now()
    for (const site of [shop, blog]) {
      await installed(site.id, certificate.fingerprintSha256)
      expect(presentedFingerprint(httpsPort, site.domain)).toBe(certificate.fingerprintSha256)
    }
    console.log(
      `PUT certificate to presented on 2 sites (local node): ${(performance.now() - attachedAt).toFixed(0)} ms`,
    )

    // Due: the expiry check starts the renewal; the sites are given the new certificate.
    clock = new Date(Date.parse(certificate.notAfter ?? '') - 20 * day)
    await waitFor('renewal started', async () => {
      const now = await json<Certificate>(await call('GET', `/certificates/${certificate.id}`), 200)
      return now.jobId !== certificate.jobId
    })
    // Back to today: the renewed certificate (as long-lived as the first) is judged by the real date.
    clock = null
    const renewed = await issued(certificate.id, certificate.serial)
    expect(renewed.status).toBe('active')
    expect(renewed.fingerprintSha256).not.toBe(certificate.fingerprintSha256)
    expect((await eventsOf('certificate.renewed')).map((event) => event.serial)).toContain(renewed.serial)
    for (const site of [shop, blog]) {
      await installed(site.id, renewed.fingerprintSha256)
      expect(presentedFingerprint(httpsPort, site.domain)).toBe(renewed.fingerprintSha256)
    }

    // On request: once more.
    await json(await call('POST', `/certificates/${certificate.id}/renew`), 202)
    const again = await issued(certificate.id, renewed.serial)
    expect(again.status).toBe('active')
    await installed(shop.id, again.fingerprintSha256)
    expect(presentedFingerprint(httpsPort, shop.domain)).toBe(again.fingerprintSha256)
    const page = Bun.spawnSync([
      'curl',
      '-sk',
      '--resolve',
      `shop.acme.test:${httpsPort}:127.0.0.1`,
      `https://shop.acme.test:${httpsPort}/`,
    ])
    expect(page.stdout.toString()).toContain('shop.acme.test')
  }, 120_000)

  test('for a domain the CA cannot reach fails with the CA’s problem', async () => {
    const customerId = (
      await json<{ id: string }>(await call('POST', '/customers', { name: 'Lost Co' }), 201)
    ).id
    await api.newSite(customerId, 'lost.acme.test')
    const ordered = await json<Certificate>(
      await call('POST', '/certificates', { customerId, source: 'acme', domains: ['lost.acme.test'] }),
      201,
    )
    const failed = await issued(ordered.id)
    expect(failed.status).toBe('failed')
    // Pebble's word for a name it could not resolve before fetching the answer.
    expect(failed.acme?.lastError?.type).toBe('urn:ietf:params:acme:error:connection')
    expect(failed.acme?.lastError?.detail).toContain('lost.acme.test')
    const job = await json<{ status: string; error: { message: string } }>(
      await call('GET', `/jobs/${ordered.jobId}`),
      200,
    )
    expect(job.status).toBe('failed')
    expect(job.error.message).toContain('lost.acme.test')
    const events = (await eventsOf('certificate.failed')).filter(
      (event) => (event.certificate as Certificate).id === ordered.id,
    )
    expect(events).toHaveLength(1)
    expect(events[0]?.error).toEqual(failed.acme?.lastError)
  }, 120_000)
})
