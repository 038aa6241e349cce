// Certificates through the API on a panel with a local node: uploads refused for each reason with nothing kept,
// uploads kept with the key sealed, attached to sites (installed in the node's files, names checked), detached,
// deleted, the expiry notices on a clock the test moves, tenancy, and the key found nowhere but sealed.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { X509Certificate } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createTestPanel,
  encryptKey,
  expectFieldProblem,
  expectProblem,
  type Hierarchy,
  makeCertificate,
  makeHierarchy,
  opensslFacts,
  storeRowsText,
  type TestPanel,
} from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import type { Site } from '../sites/contract.ts'
import { sitesPlugin } from '../sites/index.ts'
import type { Certificate, SiteCertificate } from './contract.ts'
import { certificatesPlugin } from './index.ts'
import { type ApiClient, apiClientOf } from './testing/api-client.ts'

const day = 86_400_000
const folder = mkdtempSync(join(tmpdir(), 'plinth-certificates-'))
const nodeDir = join(folder, 'node')
const storePath = join(folder, 'panel.sqlite')
/** The clock the expiry check judges by: the test moves it. */
let clock: Date | null = null

let tp: TestPanel
let staff: string
let ca: Hierarchy
let api: ApiClient

beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      nodesPlugin({ dataDir: nodeDir }),
      sitesPlugin(),
      // ACME at an address where nothing listens: orders are accepted, and their jobs fail as a CA down would.
      certificatesPlugin({
        acme: { directoryUrl: 'http://127.0.0.1:9/directory' },
        expiryCheckIntervalMs: 100,
        now: () => clock ?? new Date(),
      }),
    ],
    storePath,
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  staff = await tp.token()
  api = apiClientOf(tp, staff)
  ca = await makeHierarchy(['shop.example.com', '*.example.com'])
})
afterAll(async () => {
  await tp.panel.close()
  rmSync(folder, { recursive: true, force: true })
})

const call = (method: string, path: string, body?: unknown, token?: string) =>
  api.call(method, path, body, token)
const json = <T>(response: Response, status: number) => api.json<T>(response, status)
const waitFor = <T>(what: string, probe: () => Promise<T>, ms?: number) => api.waitFor(what, probe, ms)
const newCustomer = (name: string) => api.newCustomer(name)
const newSite = (customerId: string, domain: string) => api.newSite(customerId, domain)
const eventsOf = (kind: string) => api.eventsOf(kind)

/** The site's attachment once its job has finished (installed or gone). */
async function settledAttachment(siteId: string): Promise<SiteCertificate | null> {
  return waitFor(
    `certificate of ${siteId}`,
    async () => {
      const response = await call('GET', `/sites/${siteId}/certificate`)
      if (response.status === 404) return { gone: true as const }
      const attachment = await json<SiteCertificate>(response, 200)
      return attachment.status === 'installed' || attachment.status === 'failed' ? { attachment } : null
    },
    10_000,
  ).then((found) => ('gone' in found ? null : found.attachment))
}

const upload = (customerId: string, fields: Record<string, unknown>) =>
  call('POST', '/certificates', { customerId, ...fields })
/** The hierarchy's leaf with its key, and its chain with the (private) root, which is not served. */
const uploadOf = (customerId: string, hierarchy: Hierarchy = ca) =>
  upload(customerId, {
    certificatePem: hierarchy.leaf.pem,
    privateKeyPem: hierarchy.leaf.keyPem,
    chainPem: hierarchy.intermediate.pem + hierarchy.root.pem,
  })

async function certificateCount(): Promise<number> {
  const rows = await tp.panel.store.db
    .withTables<{ certificates: { id: string } }>()
    .selectFrom('certificates')
    .select('id')
    .execute()
  return rows.length
}

describe('uploading', () => {
  test('a good certificate is kept with its facts, its chain, and never its key', async () => {
    const customerId = await newCustomer('Upload Co')
    const response = await uploadOf(customerId)
    const certificate = await json<Certificate>(response, 201)
    expect(response.headers.get('location')).toBe(`/api/v1/certificates/${certificate.id}`)
    const facts = opensslFacts(ca.leaf.pem)
    expect(certificate).toMatchObject({
      customerId,
      source: 'uploaded',
      // The fixtures' certificates end in 30 days: within the notice period already.
      status: 'expiring',
      subject: 'CN=shop.example.com',
      names: ['shop.example.com', '*.example.com'],
      issuer: 'C=FR, O=Plinth Tests, CN=Test Intermediate',
      serial: facts.serial,
      fingerprintSha256: facts.fingerprint,
      keyType: 'ec-p256',
      chainStatus: 'complete',
      certificatePem: ca.leaf.pem,
      chainPem: ca.intermediate.pem,
      sites: [],
      acme: null,
    })
    expect(Object.keys(certificate).some((key) => /key/i.test(key) && key !== 'keyType')).toBe(false)
    expect(await json<Certificate>(await call('GET', `/certificates/${certificate.id}`), 200)).toEqual(
      certificate,
    )
    const page = await json<{ items: Certificate[] }>(
      await call('GET', `/certificates?customerId=${customerId}`),
      200,
    )
    expect(page.items).toEqual([certificate])
    expect((await eventsOf('certificate.created')).some((event) => event.id === certificate.id)).toBe(true)
  })

  test('an encrypted key is taken with its passphrase, which is not kept either', async () => {
    const customerId = await newCustomer('Passphrase Co')
    const encrypted = encryptKey(ca.leaf.keyPem, 'correct horse battery')
    await expectFieldProblem(
      await upload(customerId, {
        certificatePem: ca.leaf.pem,
        privateKeyPem: encrypted,
        chainPem: ca.intermediate.pem + ca.root.pem,
      }),
      422,
      'private_key_passphrase_required',
      'body.passphrase',
    )
    await json<Certificate>(
      await upload(customerId, {
        certificatePem: ca.leaf.pem,
        privateKeyPem: encrypted,
        chainPem: ca.intermediate.pem + ca.root.pem,
        passphrase: 'correct horse battery',
      }),
      201,
    )
  })

  test('each refusal answers 422 at its field, and nothing is kept', async () => {
    const customerId = await newCustomer('Refused Co')
    const other = await makeHierarchy(['shop.example.com'])
    const expired = await makeCertificate({
      subject: 'CN=old.example.com',
      issuer: ca.intermediate,
      names: ['old.example.com'],
      notBefore: new Date(Date.now() - 90 * day),
      notAfter: new Date(Date.now() - day),
    })
    const future = await makeCertificate({
      subject: 'CN=soon.example.com',
      issuer: ca.intermediate,
      names: ['soon.example.com'],
      notBefore: new Date(Date.now() + day),
    })
    const weak = await makeCertificate({
      subject: 'CN=weak.example.com',
      issuer: ca.intermediate,
      names: ['weak.example.com'],
      keys: { rsa: 1024 },
    })
    const selfSigned = await makeCertificate({ subject: 'CN=self.example.com', names: ['self.example.com'] })
    const endEntity = await makeCertificate({ subject: 'CN=beta.example.org', issuer: ca.intermediate })
    const underEndEntity = await makeCertificate({ subject: 'CN=shop.example.com', issuer: endEntity })
    const nameless = await makeCertificate({ subject: 'CN=Nameless', issuer: ca.intermediate, names: [] })
    const cases: [string, Record<string, unknown>, string, string][] = [
      [
        'no certificate',
        { privateKeyPem: ca.leaf.keyPem },
        'certificate_fields_missing',
        'body.certificatePem',
      ],
      ['no key', { certificatePem: ca.leaf.pem }, 'certificate_fields_missing', 'body.privateKeyPem'],
      [
        'domains with an upload',
        {
          certificatePem: ca.leaf.pem,
          privateKeyPem: ca.leaf.keyPem,
          chainPem: ca.intermediate.pem + ca.root.pem,
          domains: ['a.example.com'],
        },
        'field_not_for_source',
        'body.domains',
      ],
      [
        'PEM that does not parse',
        {
          certificatePem: '-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n',
          privateKeyPem: ca.leaf.keyPem,
          chainPem: ca.intermediate.pem + ca.root.pem,
        },
        'invalid_certificate_pem',
        'body.certificatePem',
      ],
      [
        'a key of another certificate',
        {
          certificatePem: ca.leaf.pem,
          privateKeyPem: other.leaf.keyPem,
          chainPem: ca.intermediate.pem + ca.root.pem,
        },
        'key_certificate_mismatch',
        'body.privateKeyPem',
      ],
      [
        'an expired certificate',
        {
          certificatePem: expired.pem,
          privateKeyPem: expired.keyPem,
          chainPem: ca.intermediate.pem + ca.root.pem,
        },
        'certificate_expired',
        'body.certificatePem',
      ],
      [
        'a certificate not valid yet',
        {
          certificatePem: future.pem,
          privateKeyPem: future.keyPem,
          chainPem: ca.intermediate.pem + ca.root.pem,
        },
        'certificate_not_yet_valid',
        'body.certificatePem',
      ],
      [
        'a CA certificate as the leaf',
        { certificatePem: ca.intermediate.pem, privateKeyPem: ca.intermediate.keyPem, chainPem: ca.root.pem },
        'certificate_is_ca',
        'body.certificatePem',
      ],
      [
        'an RSA key of 1024 bits',
        { certificatePem: weak.pem, privateKeyPem: weak.keyPem, chainPem: ca.intermediate.pem + ca.root.pem },
        'weak_key',
        'body.certificatePem',
      ],
      [
        'a certificate over 64 KiB (of two-byte characters)',
        { certificatePem: 'é'.repeat(40_000), privateKeyPem: ca.leaf.keyPem },
        'pem_too_large',
        'body.certificatePem',
      ],
      [
        'a chain of eleven certificates',
        {
          certificatePem: ca.leaf.pem,
          privateKeyPem: ca.leaf.keyPem,
          chainPem: ca.intermediate.pem.repeat(11),
        },
        'chain_too_long',
        'body.chainPem',
      ],
      [
        'a key that is no PEM',
        {
          certificatePem: ca.leaf.pem,
          privateKeyPem: 'not a key',
          chainPem: ca.intermediate.pem + ca.root.pem,
        },
        'invalid_private_key_pem',
        'body.privateKeyPem',
      ],
      [
        'a wrong passphrase',
        {
          certificatePem: ca.leaf.pem,
          privateKeyPem: encryptKey(ca.leaf.keyPem, 'the right one'),
          passphrase: 'a wrong one',
          chainPem: ca.intermediate.pem + ca.root.pem,
        },
        'wrong_private_key_passphrase',
        'body.passphrase',
      ],
      [
        'a chain that is no PEM',
        {
          certificatePem: ca.leaf.pem,
          privateKeyPem: ca.leaf.keyPem,
          chainPem: '-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n',
        },
        'invalid_chain_pem',
        'body.chainPem',
      ],
      [
        'a chain holding another chain’s intermediate',
        {
          certificatePem: ca.leaf.pem,
          privateKeyPem: ca.leaf.keyPem,
          chainPem: `${ca.intermediate.pem}${ca.root.pem}${other.intermediate.pem}`,
        },
        'chain_not_for_certificate',
        'body.chainPem',
      ],
      [
        'an end-entity certificate standing in the chain',
        {
          certificatePem: underEndEntity.pem,
          privateKeyPem: underEndEntity.keyPem,
          chainPem: endEntity.pem + ca.intermediate.pem + ca.root.pem,
        },
        'chain_issuer_not_ca',
        'body.chainPem',
      ],
      [
        'a certificate naming no domain in a subjectAltName',
        {
          certificatePem: nameless.pem,
          privateKeyPem: nameless.keyPem,
          chainPem: ca.intermediate.pem + ca.root.pem,
        },
        'certificate_without_names',
        'body.certificatePem',
      ],
      [
        'a chain missing the intermediate',
        { certificatePem: ca.leaf.pem, privateKeyPem: ca.leaf.keyPem },
        'incomplete_chain',
        'body.chainPem',
      ],
      [
        'a self-signed certificate not said to be one',
        { certificatePem: selfSigned.pem, privateKeyPem: selfSigned.keyPem },
        'incomplete_chain',
        'body.certificatePem',
      ],
    ]
    const before = await certificateCount()
    for (const [what, fields, code, location] of cases) {
      const response = await upload(customerId, fields)
      try {
        await expectFieldProblem(response, 422, code, location)
      } catch (error) {
        throw new Error(`${what}: ${(error as Error).message}`)
      }
    }
    expect(await certificateCount()).toBe(before)
    // Said to be self-signed, it is taken as such.
    const taken = await json<Certificate>(
      await upload(customerId, {
        certificatePem: selfSigned.pem,
        privateKeyPem: selfSigned.keyPem,
        selfSigned: true,
      }),
      201,
    )
    expect(taken.chainStatus).toBe('self-signed')
    expect(taken.chainPem).toBe('')
  })

  test('intermediates given out of order are served in order', async () => {
    const customerId = await newCustomer('Order Co')
    const root = await makeCertificate({ subject: 'CN=Long Root', ca: true })
    const upper = await makeCertificate({ subject: 'CN=Upper', issuer: root, ca: true })
    const lower = await makeCertificate({ subject: 'CN=Lower', issuer: upper, ca: true })
    const leaf = await makeCertificate({
      subject: 'CN=deep.example.com',
      issuer: lower,
      names: ['deep.example.com'],
    })
    const certificate = await json<Certificate>(
      await upload(customerId, {
        certificatePem: leaf.pem,
        privateKeyPem: leaf.keyPem,
        chainPem: `${root.pem}${upper.pem}${lower.pem}`,
      }),
      201,
    )
    expect(certificate.chainPem).toBe(`${lower.pem}${upper.pem}`)
  })

  test('an unknown or unseen customer is refused alike', async () => {
    const customerId = await newCustomer('Hidden Co')
    const mine = await newCustomer('Mine Co')
    const limited = await tp.token({ customerId: mine })
    for (const id of [customerId, 'cus_01JDQ3V6Y4T1ZK0M2N5P7R9S8W'])
      await expectFieldProblem(
        await tp.request('POST', '/api/v1/certificates', {
          token: limited,
          body: {
            customerId: id,
            certificatePem: ca.leaf.pem,
            privateKeyPem: ca.leaf.keyPem,
            chainPem: ca.intermediate.pem + ca.root.pem,
          },
        }),
        422,
        'unknown_customer',
        'body.customerId',
      )
  })
})

describe('a site’s certificate', () => {
  test('is installed on the node, replaced, refused when its names do not cover the domain, and detached', async () => {
    const customerId = await newCustomer('Attach Co')
    const site = await newSite(customerId, 'shop.example.com')
    const certificate = await json<Certificate>(await uploadOf(customerId), 201)
    const elsewhere = await makeHierarchy(['other.example.org'])
    const mismatch = await json<Certificate>(await uploadOf(customerId, elsewhere), 201)

    const refused = await expectProblem(
      await call('PUT', `/sites/${site.id}/certificate`, { certificateId: mismatch.id }),
      422,
      'certificate_name_mismatch',
    )
    expect(refused).toMatchObject({ domain: 'shop.example.com', names: ['other.example.org'] })
    expect((await call('GET', `/sites/${site.id}/certificate`)).status).toBe(404)

    const attached = await json<SiteCertificate>(
      await call('PUT', `/sites/${site.id}/certificate`, { certificateId: certificate.id }),
      202,
    )
    expect(attached).toMatchObject({ siteId: site.id, certificateId: certificate.id, status: 'installing' })
    const installed = await settledAttachment(site.id)
    expect(installed).toMatchObject({
      status: 'installed',
      installedFingerprint: certificate.fingerprintSha256,
    })

    // On the node: the chain after the certificate, the key readable by its owner only.
    const hex = (certificate.fingerprintSha256 ?? '').replaceAll(':', '').toLowerCase()
    const tlsDir = join(nodeDir, 'tls', site.id)
    expect(readFileSync(join(tlsDir, `${hex}.pem`), 'utf8')).toBe(`${ca.leaf.pem}${ca.intermediate.pem}`)
    expect(statSync(join(tlsDir, `${hex}.key`)).mode & 0o777).toBe(0o600)
    expect(statSync(tlsDir).mode & 0o777).toBe(0o700)
    expect(readFileSync(join(nodeDir, 'nginx', 'sites', `${site.id}.conf`), 'utf8')).toContain(`${hex}.pem`)

    expect(
      (await json<Certificate>(await call('GET', `/certificates/${certificate.id}`), 200)).sites,
    ).toEqual([site.id])
    const inUse = await expectProblem(
      await call('DELETE', `/certificates/${certificate.id}`),
      409,
      'certificate_in_use',
    )
    expect(inUse).toMatchObject({ sites: [site.id] })

    // Replaced by a successor: the node serves the new one, the old files are gone.
    const successor = await makeHierarchy(['shop.example.com'])
    const next = await json<Certificate>(await uploadOf(customerId, successor), 201)
    await json(await call('PUT', `/sites/${site.id}/certificate`, { certificateId: next.id }), 202)
    expect(await settledAttachment(site.id)).toMatchObject({ installedFingerprint: next.fingerprintSha256 })
    const nextHex = (next.fingerprintSha256 ?? '').replaceAll(':', '').toLowerCase()
    expect(readdirSync(tlsDir).sort()).toEqual([`${nextHex}.key`, `${nextHex}.pem`])
    expect(
      (await json<Certificate>(await call('GET', `/certificates/${certificate.id}`), 200)).sites,
    ).toEqual([])
    expect((await call('DELETE', `/certificates/${certificate.id}`)).status).toBe(204)
    expect((await call('GET', `/certificates/${certificate.id}`)).status).toBe(404)

    // Detached: removed from the node, and the certificate is free to go.
    expect(
      await json<SiteCertificate>(await call('DELETE', `/sites/${site.id}/certificate`), 202),
    ).toMatchObject({ status: 'removing' })
    expect(await settledAttachment(site.id)).toBeNull()
    expect(existsSync(tlsDir)).toBe(false)
    expect(readFileSync(join(nodeDir, 'nginx', 'sites', `${site.id}.conf`), 'utf8')).not.toContain(
      'ssl_certificate',
    )
    expect((await call('DELETE', `/certificates/${next.id}`)).status).toBe(204)

    const actions = await tp.panel.store.db
      .withTables<{ audit_entries: { action: string; subject_id: string } }>()
      .selectFrom('audit_entries')
      .select('action')
      .where('subject_id', 'in', [site.id, certificate.id, next.id])
      .execute()
    expect(actions.map((row) => row.action)).toEqual(
      expect.arrayContaining([
        'certificate.create',
        'site_certificate.attach',
        'site_certificate.detach',
        'certificate.delete',
      ]),
    )
    expect((await eventsOf('certificate.deleted')).map((event) => event.id)).toEqual(
      expect.arrayContaining([certificate.id, next.id]),
    )
  })

  test('is refused for a site being deleted', async () => {
    const customerId = await newCustomer('Leaving Co')
    const site = await newSite(customerId, 'leaving.example.com')
    const certificate = await json<Certificate>(await uploadOf(customerId), 201)
    // The moment between DELETE and its job's end, held still: the row as the deletion leaves it meanwhile.
    await tp.panel.store.db
      .withTables<{ sites: { id: string; status: string } }>()
      .updateTable('sites')
      .set({ status: 'deleting' })
      .where('id', '=', site.id)
      .execute()
    await expectProblem(
      await call('PUT', `/sites/${site.id}/certificate`, { certificateId: certificate.id }),
      409,
      'site_not_servable',
    )
  })

  test('takes only the site customer’s usable certificates', async () => {
    const customerId = await newCustomer('Own Co')
    const otherId = await newCustomer('Other Co')
    const site = await newSite(customerId, 'own.example.com')
    const theirs = await json<Certificate>(await uploadOf(otherId), 201)
    await expectFieldProblem(
      await call('PUT', `/sites/${site.id}/certificate`, { certificateId: theirs.id }),
      422,
      'unknown_certificate',
      'body.certificateId',
    )
    // A token of the other customer sees neither the site nor lists the first one's certificates.
    const limited = await tp.token({ customerId: otherId })
    expect((await call('GET', `/sites/${site.id}/certificate`, undefined, limited)).status).toBe(404)
    const mine = await json<Certificate>(await uploadOf(customerId), 201)
    expect((await call('GET', `/certificates/${mine.id}`, undefined, limited)).status).toBe(404)
    const listed = await json<{ items: Certificate[] }>(
      await call('GET', '/certificates', undefined, limited),
      200,
    )
    expect(listed.items.every((item) => item.customerId === otherId)).toBe(true)
  })

  test('goes with its site, and leaves when the site’s new domain is not among its names', async () => {
    const customerId = await newCustomer('Move Co')
    const site = await newSite(customerId, 'move.example.com')
    const certificate = await json<Certificate>(await uploadOf(customerId), 201)
    await json(await call('PUT', `/sites/${site.id}/certificate`, { certificateId: certificate.id }), 202)
    await settledAttachment(site.id)
    // Still covered by *.example.com: kept.
    await json(await call('PATCH', `/sites/${site.id}`, { domain: 'moved.example.com' }), 200)
    await Bun.sleep(300)
    expect(
      (await json<SiteCertificate>(await call('GET', `/sites/${site.id}/certificate`), 200)).status,
    ).toBe('installed')
    // Not covered: detached and removed from the node.
    await json(await call('PATCH', `/sites/${site.id}`, { domain: 'moved.example.net' }), 200)
    expect(
      await waitFor(
        'detached',
        async () => (await call('GET', `/sites/${site.id}/certificate`)).status === 404,
        10_000,
      ),
    ).toBe(true)
    // Attached again under a covering name, then the site is deleted: the certificate is free.
    await json(await call('PATCH', `/sites/${site.id}`, { domain: 'back.example.com' }), 200)
    await waitFor(
      'site updated',
      async () => (await json<Site>(await call('GET', `/sites/${site.id}`), 200)).status === 'active',
    )
    await json(await call('PUT', `/sites/${site.id}/certificate`, { certificateId: certificate.id }), 202)
    await settledAttachment(site.id)
    await json(await call('DELETE', `/sites/${site.id}`), 202)
    await waitFor(
      'certificate free',
      async () =>
        (await json<Certificate>(await call('GET', `/certificates/${certificate.id}`), 200)).sites.length ===
        0,
      10_000,
    )
    expect((await call('DELETE', `/certificates/${certificate.id}`)).status).toBe(204)
  })
})

describe('expiry', () => {
  test('marks expiring and expired, with each notice once', async () => {
    const customerId = await newCustomer('Expiry Co')
    const notAfter = new Date(Date.now() + 40 * day)
    const leaf = await makeCertificate({
      subject: 'CN=brief.example.com',
      issuer: ca.intermediate,
      names: ['brief.example.com'],
      notAfter,
    })
    const certificate = await json<Certificate>(
      await upload(customerId, {
        certificatePem: leaf.pem,
        privateKeyPem: leaf.keyPem,
        chainPem: ca.intermediate.pem + ca.root.pem,
      }),
      201,
    )
    expect(certificate.status).toBe('active')
    const statusAfter = async (daysBeforeEnd: number, status: string) => {
      clock = new Date(Date.parse(certificate.notAfter ?? '') - daysBeforeEnd * day)
      return waitFor(
        `${status} at ${daysBeforeEnd} days`,
        async () => {
          const now = await json<Certificate>(await call('GET', `/certificates/${certificate.id}`), 200)
          return now.status === status ? now : null
        },
        10_000,
      )
    }
    const noticesOf = async () =>
      (await eventsOf('certificate.expiring'))
        .filter((event) => (event.certificate as Certificate).id === certificate.id)
        .map((event) => [event.threshold, event.daysLeft])
    await statusAfter(29.5, 'expiring')
    await waitFor('30-day notice', async () => (await noticesOf()).length === 1)
    // Moved to 13 days: one notice (14), then at 6 days one more (7); the checks in between send nothing more.
    await statusAfter(13.5, 'expiring')
    await waitFor('14-day notice', async () => (await noticesOf()).length === 2)
    await Bun.sleep(400)
    await statusAfter(6.5, 'expiring')
    await waitFor('7-day notice', async () => (await noticesOf()).length === 3)
    await Bun.sleep(400)
    expect(await noticesOf()).toEqual([
      [30, 29],
      [14, 13],
      [7, 6],
    ])
    await statusAfter(-0.5, 'expired')
    await waitFor('expired event', async () =>
      (await eventsOf('certificate.expired')).some((event) => event.id === certificate.id),
    )
    await Bun.sleep(400)
    expect(
      (await eventsOf('certificate.expired')).filter((event) => event.id === certificate.id),
    ).toHaveLength(1)
    // An expired certificate is not attached to anything.
    const site = await newSite(customerId, 'brief.example.com')
    await expectProblem(
      await call('PUT', `/sites/${site.id}/certificate`, { certificateId: certificate.id }),
      422,
      'certificate_not_usable',
    )
    clock = null
  })
})

describe('ACME orders', () => {
  test('need the domains of the customer’s own sites, and report the CA’s failure', async () => {
    const customerId = await newCustomer('Order Co')
    const otherId = await newCustomer('Not Mine Co')
    await newSite(customerId, 'order.example.com')
    await newSite(otherId, 'theirs.example.com')
    const order = (fields: Record<string, unknown>) => upload(customerId, { source: 'acme', ...fields })
    await expectFieldProblem(await order({}), 422, 'certificate_fields_missing', 'body.domains')
    await expectFieldProblem(
      await order({ domains: ['order.example.com'], certificatePem: ca.leaf.pem }),
      422,
      'field_not_for_source',
      'body.certificatePem',
    )
    await expectFieldProblem(
      await order({ domains: ['*.example.com'] }),
      422,
      'acme_wildcard_unsupported',
      'body.domains.0',
    )
    await expectFieldProblem(
      await order({ domains: ['theirs.example.com'] }),
      422,
      'acme_domain_not_hosted',
      'body.domains.0',
    )
    await expectFieldProblem(
      await order({ domains: ['no site.example.com'] }),
      422,
      'invalid_acme_domain',
      'body.domains.0',
    )

    const ordered = await json<Certificate>(await order({ domains: ['Order.Example.com.'] }), 201)
    expect(ordered).toMatchObject({
      source: 'acme',
      status: 'issuing',
      names: [],
      serial: null,
      acme: { domains: ['order.example.com'], lastError: null },
    })
    expect(ordered.jobId).toMatch(/^job_/)
    await expectProblem(await call('POST', `/certificates/${ordered.id}/renew`), 409, 'certificate_busy')
    // Nothing answers at the directory: the job gives up, the certificate is failed with the reason.
    const failed = await waitFor(
      'failed',
      async () => {
        const now = await json<Certificate>(await call('GET', `/certificates/${ordered.id}`), 200)
        return now.status === 'failed' ? now : null
      },
      20_000,
    )
    expect(failed.acme?.lastError).toMatchObject({
      type: 'about:blank',
      detail: expect.stringContaining('The ACME directory http://127.0.0.1:9/directory could not be reached'),
    })
    const job = await json<{ status: string; error: { message: string } }>(
      await call('GET', `/jobs/${ordered.jobId}`),
      200,
    )
    expect(job.status).toBe('failed')
    const events = (await eventsOf('certificate.failed')).filter(
      (event) => (event.certificate as Certificate).id === ordered.id,
    )
    expect(events).toHaveLength(1)
    expect(events[0]?.error).toEqual(failed.acme?.lastError)
    // An uploaded certificate is not renewed by the panel; a failed order is ordered again.
    const uploaded = await json<Certificate>(await uploadOf(customerId), 201)
    await expectProblem(await call('POST', `/certificates/${uploaded.id}/renew`), 409, 'not_acme_certificate')
    const again = await json<Certificate>(await call('POST', `/certificates/${ordered.id}/renew`), 202)
    expect(again.status).toBe('issuing')
    expect(again.jobId).not.toBe(ordered.jobId)
  })
})

describe('the private key', () => {
  test('is nowhere in clear: not in the store file, nor any answer, audit entry or event', async () => {
    const customerId = await newCustomer('Secret Co')
    const secret = await makeHierarchy(['secret.example.com'])
    const site = await newSite(customerId, 'secret.example.com')
    const certificate = await json<Certificate>(await uploadOf(customerId, secret), 201)
    await json(await call('PUT', `/sites/${site.id}/certificate`, { certificateId: certificate.id }), 202)
    await settledAttachment(site.id)
    await json(await call('GET', `/certificates?customerId=${customerId}`), 200)
    await json(await call('GET', '/audit?limit=100'), 200)
    // The key's body, and a long slice of it (a PEM line), searched for.
    const body = secret.leaf.keyPem.replace(/-----[^-]+-----/g, '').replace(/\s/g, '')
    const needles = [body, body.slice(10, 60)]
    // Every row of the store, on either engine; on SQLite the file's bytes too (free pages, the WAL).
    const store = await storeRowsText(tp.panel.store.db)
    expect(store).toContain(certificate.id)
    for (const needle of needles) expect(store.includes(needle)).toBe(false)
    for (const name of readdirSync(folder).filter((file) => file.startsWith('panel.sqlite'))) {
      const bytes = readFileSync(join(folder, name)).toString('latin1')
      for (const needle of needles) expect(bytes.includes(needle)).toBe(false)
    }
    for (const text of api.answers) for (const needle of needles) expect(text.includes(needle)).toBe(false)
    const outbox = await tp.panel.store.db
      .withTables<{ event_outbox: { payload: string } }>()
      .selectFrom('event_outbox')
      .select('payload')
      .execute()
    for (const row of outbox) for (const needle of needles) expect(row.payload.includes(needle)).toBe(false)
    // The node has it, as root's alone: that is where it is served from.
    const hex = (certificate.fingerprintSha256 ?? '').replaceAll(':', '').toLowerCase()
    const onNode = readFileSync(join(nodeDir, 'tls', site.id, `${hex}.key`), 'utf8')
    expect(
      new X509Certificate(secret.leaf.pem).checkPrivateKey(
        (await import('node:crypto')).createPrivateKey(onNode),
      ),
    ).toBe(true)
  })
})

describe('with ACME off', () => {
  test('orders are refused, and capabilities say ACME is off', async () => {
    const off = await createTestPanel({
      standard: false,
      plugins: [
        brandsPlugin(),
        customersPlugin(),
        nodesPlugin({ dataDir: join(folder, 'off') }),
        sitesPlugin(),
        certificatesPlugin({ acme: false, expiryCheckIntervalMs: 0 }),
      ],
    })
    try {
      const token = await off.token()
      const customer = await (
        await off.request('POST', '/api/v1/customers', { token, body: { name: 'Off' } })
      ).json()
      await expectFieldProblem(
        await off.request('POST', '/api/v1/certificates', {
          token,
          body: { customerId: (customer as { id: string }).id, source: 'acme', domains: ['off.example.com'] },
        }),
        422,
        'acme_disabled',
        'body.source',
      )
      // Capabilities say so beforehand, so a client need not offer what will be refused.
      const capabilities = (await (await off.request('GET', '/api/v1/capabilities', { token })).json()) as {
        installation: { plugins: { name: string; capabilities: unknown }[] }
      }
      expect(
        capabilities.installation.plugins.find((plugin) => plugin.name === 'certificates')?.capabilities,
      ).toEqual({ acme: false })
    } finally {
      await off.panel.close()
    }
  })
})
