// The upload checks on certificates made for each case by the fixtures (a root, an intermediate, leaves for
// shop.example.com), compared with the openssl CLI where it has an answer; and the X.509 behaviour of Bun they
// rely on, pinned, since Bun's node:crypto runs on BoringSSL and has had X.509 bugs.

import { beforeAll, describe, expect, test } from 'bun:test'
import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto'
import {
  encryptKey,
  type Hierarchy,
  type Made,
  makeCertificate,
  makeHierarchy,
  opensslFacts,
  opensslKey,
} from '../../hosts/testing/index.ts'
import {
  checkUpload,
  maxChainCertificates,
  maxPemBytes,
  namesCover,
  type UploadCheck,
  type UploadInput,
} from './certificate-checks.ts'
import { keyEncryptionOf, readPemBlocks } from './pem.ts'

const day = 86_400_000

let ca: Hierarchy
let chainPem: string
beforeAll(async () => {
  ca = await makeHierarchy()
  chainPem = ca.intermediate.pem + ca.root.pem
})

/** An upload of `made` with the hierarchy's intermediate and root, `overrides` on top. */
function uploadOf(made: Made, overrides: Partial<UploadInput> = {}): UploadInput {
  return { certificatePem: made.pem, privateKeyPem: made.keyPem, chainPem, ...overrides }
}

/** The `code @ location` of each refusal, for one-line comparisons. */
function refusals(result: UploadCheck): string[] {
  if (result.ok) throw new Error('The upload was accepted')
  return (result.problem.errors ?? []).map(({ code, location }) => `${code} @ ${location.slice(5)}`)
}

function accepted(result: UploadCheck) {
  if (!result.ok) throw new Error(`Refused: ${JSON.stringify(result.problem.toJSON())}`)
  return result.certificate
}

/** The same public key, compared as DER SubjectPublicKeyInfo. */
function samePublicKey(a: string, b: string): boolean {
  const spki = (pem: string) => createPublicKey(pem).export({ type: 'spki', format: 'der' })
  return spki(a).equals(spki(b))
}

describe('Bun’s X.509, as the checks use it', () => {
  test('checkPrivateKey: true for the certificate’s own key, false for another, for EC, RSA and Ed25519 keys', async () => {
    const leaf = new X509Certificate(ca.leaf.pem)
    expect(leaf.checkPrivateKey(createPrivateKey(ca.leaf.keyPem))).toBe(true)
    expect(leaf.checkPrivateKey(createPrivateKey(ca.intermediate.keyPem))).toBe(false)
    expect(leaf.checkPrivateKey(createPrivateKey(ca.root.keyPem))).toBe(false)
    const root = new X509Certificate(ca.root.pem)
    expect(root.checkPrivateKey(createPrivateKey(ca.root.keyPem))).toBe(true)
    expect(root.checkPrivateKey(createPrivateKey(ca.leaf.keyPem))).toBe(false)
    const ed = await makeCertificate({ subject: 'CN=ed', issuer: ca.intermediate, keys: { ed25519: true } })
    const other = await makeCertificate({
      subject: 'CN=ed2',
      issuer: ca.intermediate,
      keys: { ed25519: true },
    })
    expect(new X509Certificate(ed.pem).checkPrivateKey(createPrivateKey(ed.keyPem))).toBe(true)
    expect(new X509Certificate(ed.pem).checkPrivateKey(createPrivateKey(other.keyPem))).toBe(false)
  })

  test('ca: true for the root and the intermediate, false for the leaf', () => {
    expect(new X509Certificate(ca.root.pem).ca).toBe(true)
    expect(new X509Certificate(ca.intermediate.pem).ca).toBe(true)
    expect(new X509Certificate(ca.leaf.pem).ca).toBe(false)
  })

  test('verify: a leaf the P-384 intermediate signed verifies with its key only; the intermediate with the RSA root’s', () => {
    const [root, intermediate, leaf] = [ca.root, ca.intermediate, ca.leaf].map(
      (m) => new X509Certificate(m.pem),
    )
    if (!root || !intermediate || !leaf) throw new Error('unreachable')
    expect(leaf.verify(intermediate.publicKey)).toBe(true)
    expect(leaf.verify(root.publicKey)).toBe(false)
    expect(leaf.verify(leaf.publicKey)).toBe(false)
    expect(intermediate.verify(root.publicKey)).toBe(true)
    expect(root.verify(root.publicKey)).toBe(true)
    expect(leaf.checkIssued(intermediate)).toBe(true)
    expect(leaf.checkIssued(root)).toBe(false)
  })

  test('checkIssued says a self-signed leaf without keyCertSign did not issue itself: self-signature is judged apart', async () => {
    const made = await makeCertificate({ subject: 'CN=self.example.com' })
    const self = new X509Certificate(made.pem)
    expect(self.checkIssued(self)).toBe(false)
    expect(self.verify(self.publicKey)).toBe(true)
    expect(accepted(checkUpload({ ...uploadOf(made), chainPem: '', selfSigned: true })).chainStatus).toBe(
      'self-signed',
    )
  })

  test('fingerprint256, serialNumber and the validity dates agree with openssl', async () => {
    for (const serial of ['01', '7f', '8f01', '00ff', '1234567890abcdef1234']) {
      const made = await makeCertificate({ subject: 'CN=serial', serial })
      const facts = opensslFacts(made.pem)
      const certificate = new X509Certificate(made.pem)
      expect(certificate.fingerprint256).toBe(facts.fingerprint)
      expect(certificate.serialNumber).toBe(facts.serial)
    }
    const notBefore = new Date('2026-01-02T03:04:05Z')
    const dated = await makeCertificate({
      subject: 'CN=dated',
      notBefore,
      notAfter: new Date('2049-12-31T23:59:59Z'),
    })
    expect(new Date(new X509Certificate(dated.pem).validFrom).toISOString()).toBe(notBefore.toISOString())
    // RFC 5280 switches from UTCTime to GeneralizedTime in 2050.
    const late = await makeCertificate({
      subject: 'CN=late.example.com',
      notAfter: new Date('2051-06-01T00:00:00Z'),
    })
    expect(accepted(checkUpload({ ...uploadOf(late), chainPem: '', selfSigned: true })).notAfter).toBe(
      '2051-06-01T00:00:00.000Z',
    )
  })
})

describe('a good upload', () => {
  test('is accepted with the certificate’s facts, the chain without its root, and the key unencrypted', () => {
    const certificate = accepted(checkUpload(uploadOf(ca.leaf)))
    const facts = opensslFacts(ca.leaf.pem)
    const parsed = new X509Certificate(ca.leaf.pem)
    expect(certificate).toEqual({
      subject: 'CN=shop.example.com',
      names: ['shop.example.com', '*.example.com'],
      issuer: 'C=FR, O=Plinth Tests, CN=Test Intermediate',
      serial: facts.serial,
      notBefore: new Date(parsed.validFrom).toISOString(),
      notAfter: new Date(parsed.validTo).toISOString(),
      fingerprintSha256: facts.fingerprint,
      keyType: 'ec-p256',
      certificatePem: ca.leaf.pem,
      chain: [ca.intermediate.pem],
      chainStatus: 'complete',
      privateKeyPem: expect.stringMatching(/^-----BEGIN PRIVATE KEY-----\n/),
    })
    expect(samePublicKey(certificate.privateKeyPem, ca.leaf.keyPem)).toBe(true)
  })

  test('needs no root when the chain stops at an intermediate a trusted root issued; else incomplete_chain', () => {
    const certificate = accepted(
      checkUpload(uploadOf(ca.leaf, { chainPem: ca.intermediate.pem, trustedRoots: [ca.root.pem] })),
    )
    expect(certificate.chain).toEqual([ca.intermediate.pem])
    expect(certificate.chainStatus).toBe('complete')
    // The test root is in no browser's store: without it the chain leads nowhere clients know.
    expect(refusals(checkUpload(uploadOf(ca.leaf, { chainPem: ca.intermediate.pem })))).toEqual([
      'incomplete_chain @ chainPem',
    ])
  })

  test('a chain missing an intermediate above the first is incomplete_chain, even with the root', async () => {
    const lower = await makeCertificate({
      subject: 'CN=Lower Intermediate',
      issuer: ca.intermediate,
      ca: true,
    })
    const leaf = await makeCertificate({ subject: 'CN=deep.example.com', issuer: lower })
    expect(refusals(checkUpload(uploadOf(leaf, { chainPem: lower.pem + ca.root.pem })))).toContain(
      'incomplete_chain @ chainPem',
    )
    expect(
      accepted(checkUpload(uploadOf(leaf, { chainPem: lower.pem + ca.intermediate.pem + ca.root.pem })))
        .chain,
    ).toEqual([lower.pem, ca.intermediate.pem])
  })

  test('a certificate that is no CA cannot stand in the chain: chain_issuer_not_ca', async () => {
    const endEntity = await makeCertificate({ subject: 'CN=beta.example.org', issuer: ca.intermediate })
    const leaf = await makeCertificate({ subject: 'CN=shop.example.com', issuer: endEntity })
    expect(refusals(checkUpload(uploadOf(leaf, { chainPem: endEntity.pem + chainPem })))).toEqual([
      'chain_issuer_not_ca @ chainPem',
    ])
  })

  test('an ACME chain is taken on its CA’s word at the top (trustedRoots any)', () => {
    expect(
      accepted(checkUpload(uploadOf(ca.leaf, { chainPem: ca.intermediate.pem, trustedRoots: 'any' })))
        .chainStatus,
    ).toBe('complete')
  })

  test('has its intermediates put in order, whatever order they came in; repeats and a copy of the leaf are dropped', async () => {
    const second = await makeCertificate({
      subject: 'CN=Second Intermediate',
      issuer: ca.intermediate,
      ca: true,
    })
    const leaf = await makeCertificate({
      subject: 'CN=deep.example.com',
      issuer: second,
      names: ['deep.example.com'],
    })
    for (const order of [
      [ca.root, ca.intermediate, second],
      [ca.intermediate, second],
      [ca.intermediate, ca.root, second, ca.intermediate, leaf],
    ]) {
      const certificate = accepted(
        checkUpload(
          uploadOf(leaf, { chainPem: order.map((m) => m.pem).join('\n'), trustedRoots: [ca.root.pem] }),
        ),
      )
      expect(certificate.chain).toEqual([second.pem, ca.intermediate.pem])
    }
  })

  test('answers the key type of RSA and ECDSA certificates', async () => {
    for (const [keys, keyType] of [
      [{ rsa: 2048 }, 'rsa-2048'],
      [{ rsa: 3072 }, 'rsa-3072'],
      [{ ec: 'P-384' }, 'ec-p384'],
      [{ ec: 'P-521' }, 'ec-p521'],
    ] as const) {
      const leaf = await makeCertificate({ subject: 'CN=k.example.com', issuer: ca.intermediate, keys })
      expect(accepted(checkUpload(uploadOf(leaf))).keyType).toBe(keyType)
    }
  })

  test('without a subjectAltName is certificate_without_names: browsers ignore the common name', async () => {
    const leaf = await makeCertificate({
      subject: 'O=Shop, CN=Old.Example.com',
      issuer: ca.intermediate,
      names: [],
    })
    expect(refusals(checkUpload(uploadOf(leaf)))).toEqual(['certificate_without_names @ certificatePem'])
  })

  test('takes an EC key written by `openssl ecparam -genkey`, EC PARAMETERS block first, and text around blocks', () => {
    const sec1 = createPrivateKey(ca.leaf.keyPem).export({ type: 'sec1', format: 'pem' }).toString()
    const privateKeyPem = `-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n${sec1}`
    const certificatePem = `subject=CN = shop.example.com\r\n${ca.leaf.pem.replaceAll('\n', '\r\n')}`
    const certificate = accepted(checkUpload(uploadOf(ca.leaf, { privateKeyPem, certificatePem })))
    expect(samePublicKey(certificate.privateKeyPem, ca.leaf.keyPem)).toBe(true)
  })
})

describe('an encrypted key', () => {
  test('without its passphrase is refused as private_key_passphrase_required, with a wrong one as wrong_private_key_passphrase', () => {
    for (const traditional of [false, true]) {
      const privateKeyPem = encryptKey(ca.leaf.keyPem, 'correct horse', { traditional })
      expect(refusals(checkUpload(uploadOf(ca.leaf, { privateKeyPem })))).toEqual([
        'private_key_passphrase_required @ passphrase',
      ])
      expect(refusals(checkUpload(uploadOf(ca.leaf, { privateKeyPem, passphrase: 'wrong horse' })))).toEqual([
        'wrong_private_key_passphrase @ passphrase',
      ])
    }
  })

  test('with the right passphrase is accepted and handed back unencrypted (PKCS#8 and OpenSSL’s traditional form)', () => {
    for (const traditional of [false, true]) {
      const privateKeyPem = encryptKey(ca.leaf.keyPem, 'correct horse', { traditional })
      expect(privateKeyPem).toContain(traditional ? 'Proc-Type: 4,ENCRYPTED' : 'BEGIN ENCRYPTED PRIVATE KEY')
      const certificate = accepted(
        checkUpload(uploadOf(ca.leaf, { privateKeyPem, passphrase: 'correct horse' })),
      )
      expect(certificate.privateKeyPem).toStartWith('-----BEGIN PRIVATE KEY-----')
      expect(samePublicKey(certificate.privateKeyPem, ca.leaf.keyPem)).toBe(true)
    }
  })

  test('asking for more than 1,000,000 PBKDF2 rounds is refused before anything is decrypted', () => {
    const privateKeyPem = encryptKey(ca.leaf.keyPem, 'correct horse', { rounds: 1_000_001 })
    const [block] = readPemBlocks(privateKeyPem) ?? []
    expect(block && keyEncryptionOf(block.der)).toEqual({ rounds: 1_000_001 })
    // Had it been decrypted, the wrong passphrase would have been the refusal.
    const result = checkUpload(uploadOf(ca.leaf, { privateKeyPem, passphrase: 'wrong horse' }))
    expect(refusals(result)).toEqual(['invalid_private_key_pem @ privateKeyPem'])
  })
})

describe('PEM text', () => {
  test('is read block by block, headers apart, CRLF or LF, text between blocks ignored', () => {
    const text = `Bag Attributes\r\n${ca.leaf.pem.replaceAll('\n', '\r\n')}junk\n-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-256-CBC,00\n\nAAAA\n-----END RSA PRIVATE KEY-----\n`
    const blocks = readPemBlocks(text)
    expect(blocks?.map(({ label, headers }) => ({ label, headers }))).toEqual([
      { label: 'CERTIFICATE', headers: {} },
      { label: 'RSA PRIVATE KEY', headers: { 'Proc-Type': '4,ENCRYPTED', 'DEK-Info': 'AES-256-CBC,00' } },
    ])
    expect(blocks?.[0]?.der.equals(new X509Certificate(ca.leaf.pem).raw)).toBe(true)
  })

  test('is refused whole when a block has no END line, a mismatched one, or a body that is not base64', () => {
    expect(readPemBlocks(ca.leaf.pem.slice(0, -30))).toBeNull()
    expect(readPemBlocks(ca.leaf.pem.replace('END CERTIFICATE', 'END PRIVATE KEY'))).toBeNull()
    expect(readPemBlocks('-----BEGIN CERTIFICATE-----\nAA$A\n-----END CERTIFICATE-----\n')).toBeNull()
    expect(readPemBlocks('no blocks here')).toEqual([])
  })
})

describe('refusals', () => {
  test('an expired certificate: certificate_expired; one not valid yet: certificate_not_yet_valid', async () => {
    const expired = await makeCertificate({
      subject: 'CN=shop.example.com',
      issuer: ca.intermediate,
      notBefore: new Date(Date.now() - 90 * day),
      notAfter: new Date(Date.now() - day),
    })
    expect(refusals(checkUpload(uploadOf(expired)))).toEqual(['certificate_expired @ certificatePem'])
    const early = await makeCertificate({
      subject: 'CN=shop.example.com',
      issuer: ca.intermediate,
      notBefore: new Date(Date.now() + day),
    })
    expect(refusals(checkUpload(uploadOf(early)))).toEqual(['certificate_not_yet_valid @ certificatePem'])
    expect(accepted(checkUpload(uploadOf(early, { now: new Date(Date.now() + 2 * day) }))).keyType).toBe(
      'ec-p256',
    )
  })

  test('a CA certificate given as the certificate: certificate_is_ca', () => {
    const result = checkUpload(uploadOf(ca.intermediate, { chainPem: ca.root.pem }))
    expect(refusals(result)).toEqual(['certificate_is_ca @ certificatePem'])
  })

  test('keys browsers refuse: weak_key (RSA 1024, DSA, secp256k1, Ed448, RSA-PSS)', async () => {
    const rsa1024 = await makeCertificate({
      subject: 'CN=rsa.example.com',
      issuer: ca.intermediate,
      keys: { rsa: 1024 },
    })
    expect(refusals(checkUpload(uploadOf(rsa1024)))).toEqual(['weak_key @ certificatePem'])
    const exotic = [
      ['-algorithm', 'DSA', '-pkeyopt', 'dsa_paramgen_bits:1024'],
      ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:secp256k1'],
      ['-algorithm', 'ED448'],
      ['-algorithm', 'RSA-PSS', '-pkeyopt', 'rsa_keygen_bits:2048'],
    ]
    for (const args of exotic) {
      const made = await makeCertificate({
        subject: 'CN=x.example.com',
        issuer: ca.intermediate,
        foreignKey: opensslKey(args),
      })
      const found = refusals(checkUpload(uploadOf(made)))
      // BoringSSL reads DSA keys but not the others: those are refused in the key field as well.
      expect(found).toEqual(
        args[1] === 'DSA'
          ? ['weak_key @ certificatePem']
          : ['weak_key @ certificatePem', 'weak_key @ privateKeyPem'],
      )
    }
  })

  test('a key that is not the certificate’s: key_certificate_mismatch', () => {
    const result = checkUpload(uploadOf(ca.leaf, { privateKeyPem: ca.intermediate.keyPem }))
    expect(refusals(result)).toEqual(['key_certificate_mismatch @ privateKeyPem'])
    expect(result.ok || result.problem.code).toBe('key_certificate_mismatch')
    expect(result.ok || result.problem.status).toBe(422)
  })

  test('PEM that is not PEM, or holds the wrong blocks: invalid_*_pem', () => {
    const garbage = 'hello, this is not a certificate'
    expect(
      refusals(checkUpload({ certificatePem: garbage, privateKeyPem: garbage, chainPem: garbage })),
    ).toEqual([
      'invalid_certificate_pem @ certificatePem',
      'invalid_private_key_pem @ privateKeyPem',
      'invalid_chain_pem @ chainPem',
    ])
    const truncated = ca.leaf.pem.slice(0, -30)
    const broken = ca.leaf.pem.replace(/\n[A-Za-z0-9+/]{10}/, '\n!!!!!!!!!!')
    const notDer = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'
    for (const certificatePem of [
      truncated,
      broken,
      notDer,
      ca.leaf.keyPem,
      ca.leaf.pem + ca.intermediate.pem,
      '',
    ]) {
      expect(refusals(checkUpload(uploadOf(ca.leaf, { certificatePem })))).toEqual([
        'invalid_certificate_pem @ certificatePem',
      ])
    }
    for (const privateKeyPem of [
      ca.leaf.pem,
      ca.leaf.keyPem + ca.root.keyPem,
      notDer.replaceAll('CERTIFICATE', 'PRIVATE KEY'),
    ]) {
      expect(refusals(checkUpload(uploadOf(ca.leaf, { privateKeyPem })))).toEqual([
        'invalid_private_key_pem @ privateKeyPem',
      ])
    }
    for (const bad of [ca.leaf.keyPem, `${ca.intermediate.pem}${notDer}`, truncated]) {
      expect(refusals(checkUpload(uploadOf(ca.leaf, { chainPem: bad })))).toEqual([
        'invalid_chain_pem @ chainPem',
      ])
    }
  })

  test('a chain without the intermediate: incomplete_chain, whether empty, absent or holding only the root', () => {
    for (const chainPem of ['', undefined, ca.root.pem]) {
      expect(refusals(checkUpload(uploadOf(ca.leaf, { chainPem })))).toEqual(['incomplete_chain @ chainPem'])
    }
  })

  test('a certificate a root issued directly is complete with that root, which is not served', async () => {
    const leaf = await makeCertificate({
      subject: 'CN=direct.example.com',
      issuer: ca.root,
      names: ['direct.example.com'],
    })
    expect(refusals(checkUpload(uploadOf(leaf, { chainPem: '' })))).toEqual(['incomplete_chain @ chainPem'])
    expect(accepted(checkUpload(uploadOf(leaf, { chainPem: ca.root.pem }))).chain).toEqual([])
  })

  test('a certificate in the chain that belongs to another chain: chain_not_for_certificate', async () => {
    const other = await makeHierarchy(['other.example.org'])
    for (const stray of [other.intermediate, other.root, other.leaf]) {
      const result = checkUpload(uploadOf(ca.leaf, { chainPem: chainPem + stray.pem }))
      expect(refusals(result)).toEqual(['chain_not_for_certificate @ chainPem'])
    }
  })

  test('a self-signed certificate: incomplete_chain, unless selfSigned, then accepted as self-signed', async () => {
    const made = await makeCertificate({ subject: 'CN=self.example.com', names: ['self.example.com'] })
    expect(refusals(checkUpload(uploadOf(made, { chainPem: undefined })))).toEqual([
      'incomplete_chain @ certificatePem',
    ])
    const certificate = accepted(checkUpload(uploadOf(made, { chainPem: undefined, selfSigned: true })))
    expect(certificate.chainStatus).toBe('self-signed')
    expect(certificate.chain).toEqual([])
    expect(certificate.issuer).toBe('CN=self.example.com')
    // `openssl req -x509` marks its certificates CA:TRUE: as a self-signed certificate, that one is its own anchor.
    const caSelf = await makeCertificate({
      subject: 'CN=self-ca.example.com',
      ca: true,
      names: ['self-ca.example.com'],
    })
    expect(refusals(checkUpload(uploadOf(caSelf, { chainPem: '' })))).toEqual([
      'certificate_is_ca @ certificatePem',
      'incomplete_chain @ certificatePem',
    ])
    expect(accepted(checkUpload(uploadOf(caSelf, { chainPem: '', selfSigned: true }))).chainStatus).toBe(
      'self-signed',
    )
    // A chain beside a self-signed certificate has nothing to issue.
    expect(refusals(checkUpload(uploadOf(made, { selfSigned: true })))).toEqual([
      'chain_not_for_certificate @ chainPem',
    ])
  })

  test('an expired intermediate: certificate_expired at the chain', async () => {
    const old = await makeCertificate({
      subject: 'CN=Old Intermediate',
      issuer: ca.root,
      ca: true,
      notBefore: new Date(Date.now() - 400 * day),
      notAfter: new Date(Date.now() - day),
    })
    const leaf = await makeCertificate({ subject: 'CN=shop.example.com', issuer: old })
    expect(refusals(checkUpload(uploadOf(leaf, { chainPem: old.pem + ca.root.pem })))).toEqual([
      'certificate_expired @ chainPem',
    ])
  })

  test('fields over 64 KiB: pem_too_large; a chain of more than 10 certificates: chain_too_long', () => {
    const padding = 'x'.repeat(maxPemBytes + 1)
    expect(
      refusals(
        checkUpload(uploadOf(ca.leaf, { certificatePem: padding + ca.leaf.pem, privateKeyPem: padding })),
      ),
    ).toEqual(['pem_too_large @ certificatePem', 'pem_too_large @ privateKeyPem'])
    expect(
      refusals(checkUpload(uploadOf(ca.leaf, { chainPem: `${'é'.repeat(maxPemBytes / 2)}${chainPem}` }))),
    ).toEqual(['pem_too_large @ chainPem'])
    const long = Array.from({ length: maxChainCertificates + 1 }, () => ca.intermediate.pem).join('')
    expect(refusals(checkUpload(uploadOf(ca.leaf, { chainPem: long })))).toEqual([
      'chain_too_long @ chainPem',
    ])
  })

  test('several failures at once are all listed in one validation_failed', async () => {
    const expired = await makeCertificate({
      subject: 'CN=shop.example.com',
      issuer: ca.intermediate,
      keys: { rsa: 1024 },
      notAfter: new Date(Date.now() - day),
      notBefore: new Date(Date.now() - 2 * day),
    })
    const result = checkUpload({
      certificatePem: expired.pem,
      privateKeyPem: ca.leaf.keyPem,
      chainPem: ca.root.pem,
    })
    expect(refusals(result)).toEqual([
      'certificate_expired @ certificatePem',
      'weak_key @ certificatePem',
      'incomplete_chain @ chainPem',
    ])
    if (result.ok) throw new Error('unreachable')
    expect(result.problem.code).toBe('validation_failed')
    expect(result.problem.status).toBe(422)
  })

  test('never carry the private key: not in messages, not in the problem+json a route would answer', async () => {
    const passphrase = 'a secret passphrase'
    const encrypted = encryptKey(ca.leaf.keyPem, passphrase)
    const cases: UploadInput[] = [
      uploadOf(ca.leaf, { privateKeyPem: ca.intermediate.keyPem }),
      uploadOf(ca.leaf, { certificatePem: ca.leaf.keyPem }),
      uploadOf(ca.leaf, { chainPem: ca.leaf.keyPem }),
      uploadOf(ca.leaf, { privateKeyPem: ca.leaf.keyPem.replace('A', '!') }),
      uploadOf(ca.leaf, { privateKeyPem: encrypted, passphrase: 'wrong' }),
      uploadOf(ca.leaf, { privateKeyPem: encrypted, passphrase, chainPem: '' }),
      uploadOf(ca.leaf, { privateKeyPem: ca.leaf.keyPem + ca.leaf.keyPem }),
    ]
    const secrets = [ca.leaf.keyPem, ca.intermediate.keyPem, encrypted]
      .flatMap((pem) => pem.split('\n').filter((line) => line.length > 20 && !line.startsWith('-----')))
      .concat(passphrase)
    for (const input of cases) {
      const result = checkUpload(input)
      if (result.ok) throw new Error('unreachable')
      const said = [
        result.problem.message,
        JSON.stringify(result.problem.toJSON()),
        await result.problem.toResponse().text(),
      ]
      for (const secret of secrets) for (const text of said) expect(text).not.toContain(secret)
    }
  })
})

describe('namesCover', () => {
  test('a name covers itself, case and a final dot aside', () => {
    expect(namesCover(['shop.example.com'], 'shop.example.com')).toBe(true)
    expect(namesCover(['Shop.Example.COM'], 'shop.example.com.')).toBe(true)
    expect(namesCover(['shop.example.com'], 'example.com')).toBe(false)
    expect(namesCover([], 'example.com')).toBe(false)
    expect(namesCover([''], '')).toBe(false)
  })

  test('*.example.com covers one label more: a.example.com, not example.com nor a.b.example.com', () => {
    const names = ['*.example.com']
    expect(namesCover(names, 'a.example.com')).toBe(true)
    expect(namesCover(names, 'A.EXAMPLE.com')).toBe(true)
    expect(namesCover(names, 'example.com')).toBe(false)
    expect(namesCover(names, 'a.b.example.com')).toBe(false)
    expect(namesCover(names, '.example.com')).toBe(false)
    expect(namesCover(names, 'a.example.org')).toBe(false)
    expect(namesCover(names, 'aexample.com')).toBe(false)
  })

  test('the wildcard counts only as the whole left-most label, never over a top-level domain', () => {
    expect(namesCover(['f*.example.com'], 'foo.example.com')).toBe(false)
    expect(namesCover(['*oo.example.com'], 'foo.example.com')).toBe(false)
    expect(namesCover(['a.*.example.com'], 'a.b.example.com')).toBe(false)
    expect(namesCover(['*.*.example.com'], 'a.b.example.com')).toBe(false)
    expect(namesCover(['*.com'], 'example.com')).toBe(false)
    expect(namesCover(['*'], 'localhost')).toBe(false)
    expect(namesCover(['*.example.com'], '*.example.com')).toBe(true)
  })

  test('a Unicode domain is matched in its punycode form, as certificates carry it', () => {
    expect(namesCover(['xn--bcher-kva.example'], 'bücher.example')).toBe(true)
    expect(namesCover(['*.xn--bcher-kva.example'], 'shop.Bücher.example')).toBe(true)
  })
})
