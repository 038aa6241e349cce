// The checks of a certificate upload: the certificate, its private key and its chain, each field refused for
// every reason it fails, so one 422 tells the customer everything to fix.

import 'reflect-metadata'
import { createHash, createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto'
import { rootCertificates } from 'node:tls'
import { domainToASCII } from 'node:url'
import {
  BasicConstraintsExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  X509Certificate as ParsedCertificate,
  SubjectAlternativeNameExtension,
} from '@peculiar/x509'
import { FieldErrors, type Problem } from '../../core/index.ts'
import { keyEncryptionOf, type PemBlock, publicKeyAlgorithmOf, readPemBlocks, toPem } from './pem.ts'
import { certificatesProblems as problems } from './problems.ts'

/** The most bytes each PEM field may hold: 64 KiB. */
export const maxPemBytes = 65_536
/** The most certificates `chainPem` may hold. */
export const maxChainCertificates = 10
/** The most PBKDF2 rounds an encrypted key may ask for: about a tenth of a second of one core. */
export const maxKeyDerivationRounds = 1_000_000

/** A key the panel serves: RSA by size (`rsa-2048`, `rsa-4096`, ...), or ECDSA by curve. */
export type KeyType = `rsa-${number}` | 'ec-p256' | 'ec-p384' | 'ec-p521'

/** What an accepted upload is: the facts a certificate record keeps, and the key to seal before storing. */
export interface CheckedCertificate {
  /** The subject's distinguished name in certificate order: `C=FR, O=Example, CN=shop.example.com`. */
  readonly subject: string
  /** The DNS names of the subjectAltName, lower-cased. */
  readonly names: readonly string[]
  /** The issuer's distinguished name, written as `subject` is. */
  readonly issuer: string
  /** The serial number in upper-case hex, as `openssl x509 -serial` prints it. */
  readonly serial: string
  /** Start of validity, ISO 8601. */
  readonly notBefore: string
  /** End of validity, ISO 8601. */
  readonly notAfter: string
  /** SHA-256 of the DER certificate, `AB:CD:…` as `openssl x509 -fingerprint -sha256` prints it. */
  readonly fingerprintSha256: string
  readonly keyType: KeyType
  /** The certificate as one PEM block, re-encoded from its DER (whatever else the upload's text held is gone). */
  readonly certificatePem: string
  /** The intermediates to serve after the certificate, each a PEM block, issuer after subject; never a root. */
  readonly chain: readonly string[]
  /** `self-signed` only for a self-signed certificate accepted with `selfSigned: true`. */
  readonly chainStatus: 'complete' | 'self-signed'
  /** The key as unencrypted PKCS#8 PEM, for the caller to seal at once. Never log this object whole. */
  readonly privateKeyPem: string
}

/** An upload as a route receives it. */
export interface UploadInput {
  /** The certificate issued for the domains: one PEM block, without its chain. */
  readonly certificatePem: string
  /** Unencrypted, or encrypted with `passphrase` (PKCS#8 with PBES2, or OpenSSL's traditional `Proc-Type`). */
  readonly privateKeyPem: string
  /** The intermediates, in any order; a root may be included and is then left out of the served chain. */
  readonly chainPem?: string
  /** The key's passphrase; ignored for an unencrypted key. */
  readonly passphrase?: string
  /** Accept a self-signed certificate (chainStatus `self-signed`); default `false`. */
  readonly selfSigned?: boolean
  /** The time validity is judged at; default now. */
  readonly now?: Date
  /**
   * The roots a chain may end below without including them (PEM): default the roots Node.js trusts, as browsers'
   * stores hold them. `'any'` takes the top of the chain on the issuer's word: for a certificate an ACME CA issued,
   * whose chain is the CA's.
   */
  readonly trustedRoots?: readonly string[] | 'any'
}

/** The verdict: the checked certificate, or a 422 listing every refused field (throw it from the route). */
export type UploadCheck =
  | { readonly ok: true; readonly certificate: CheckedCertificate }
  | { readonly ok: false; readonly problem: Problem }

const at = {
  certificate: 'body.certificatePem',
  key: 'body.privateKeyPem',
  chain: 'body.chainPem',
  passphrase: 'body.passphrase',
} as const

/** A certificate as both engines read it: node:crypto for signatures and keys, @peculiar/x509 for fields. */
interface Certificate {
  readonly der: Buffer
  readonly node: X509Certificate
  readonly parsed: ParsedCertificate
  readonly fingerprint: string
}

/** Checks an upload; see the refusals in problems.ts. Never throws for bad input, and echoes no key material. */
export function checkUpload(input: UploadInput): UploadCheck {
  const errors = new FieldErrors()
  const now = input.now ?? new Date()
  const leaf = fits(input.certificatePem, at.certificate, errors)
    ? readLeaf(input.certificatePem, errors)
    : null
  // Refusals are listed field by field, in the order of the form: certificate, key, passphrase, chain.
  const keyType = leaf ? checkLeaf(leaf, input.selfSigned === true, now, errors) : null

  const key = fits(input.privateKeyPem, at.key, errors) ? readKey(input, errors) : null
  const chainPem = input.chainPem ?? ''
  const given = fits(chainPem, at.chain, errors) ? readChain(chainPem, errors) : null
  if (leaf && keyType && key && !keyMatches(leaf, key)) errors.add(problems.key_certificate_mismatch, at.key)
  const chain =
    leaf && given
      ? checkChain(leaf, given, input.selfSigned === true, now, trustedRootsOf(input.trustedRoots), errors)
      : null
  if (errors.hasAny() || !leaf || !keyType || !key || !chain)
    return { ok: false, problem: errors.toProblem() }
  const names = dnsNamesOf(leaf)
  return {
    ok: true,
    certificate: {
      subject: leaf.parsed.subject,
      names: [...new Set(names)],
      issuer: leaf.parsed.issuer,
      serial: leaf.node.serialNumber.toUpperCase(),
      notBefore: leaf.parsed.notBefore.toISOString(),
      notAfter: leaf.parsed.notAfter.toISOString(),
      fingerprintSha256: leaf.fingerprint,
      keyType,
      certificatePem: toPem('CERTIFICATE', leaf.der),
      chain: chain.served.map((certificate) => toPem('CERTIFICATE', certificate.der)),
      chainStatus: chain.status,
      privateKeyPem: key.export({ type: 'pkcs8', format: 'pem' }).toString(),
    },
  }
}

/** Whether `pem` is within the size limit; records the refusal when it is not, so nothing parses a huge field. */
function fits(pem: string, location: string, errors: FieldErrors): boolean {
  if (pem.length <= maxPemBytes && Buffer.byteLength(pem, 'utf8') <= maxPemBytes) return true
  errors.add(problems.pem_too_large, location, `The field holds more than ${maxPemBytes} bytes.`)
  return false
}

/** A DER certificate, or `null` if either engine cannot read it. */
function readCertificate(der: Buffer): Certificate | null {
  try {
    const hex = createHash('sha256').update(der).digest('hex').toUpperCase()
    const fingerprint = hex.replace(/..(?!$)/g, '$&:')
    return {
      der,
      node: new X509Certificate(der),
      parsed: new ParsedCertificate(Uint8Array.from(der)),
      fingerprint,
    }
  } catch {
    return null
  }
}

/** The one certificate of `certificatePem`. */
function readLeaf(pem: string, errors: FieldErrors): Certificate | null {
  const refuse = (message: string) => errors.add(problems.invalid_certificate_pem, at.certificate, message)
  const blocks = readPemBlocks(pem)
  const other = blocks?.find((block) => block.label !== 'CERTIFICATE')
  if (!blocks?.length) refuse('The certificate is not PEM text starting with -----BEGIN CERTIFICATE-----.')
  else if (other) refuse(`The field holds a ${other.label} block; it takes one CERTIFICATE block.`)
  else if (blocks.length > 1)
    refuse(`The field holds ${blocks.length} certificates: put the others in chainPem.`)
  else {
    const certificate = blocks[0] ? readCertificate(blocks[0].der) : null
    if (certificate) return certificate
    refuse('The CERTIFICATE block is not a readable X.509 certificate.')
  }
  return null
}

/** The certificates of `chainPem`, empty when it is blank. */
function readChain(pem: string, errors: FieldErrors): Certificate[] | null {
  if (pem.trim() === '') return []
  const refuse = (message: string) => errors.add(problems.invalid_chain_pem, at.chain, message)
  const blocks = readPemBlocks(pem)
  const other = blocks?.find((block) => block.label !== 'CERTIFICATE')
  if (!blocks?.length) refuse('The chain is not PEM text of -----BEGIN CERTIFICATE----- blocks.')
  else if (other) refuse(`The chain holds a ${other.label} block; it takes CERTIFICATE blocks only.`)
  else if (blocks.length > maxChainCertificates) {
    errors.add(problems.chain_too_long, at.chain, `The chain holds ${blocks.length} certificates.`)
  } else {
    const certificates = blocks.map((block) => readCertificate(block.der))
    const unreadable = certificates.indexOf(null)
    if (unreadable < 0) return certificates.filter((certificate) => certificate !== null)
    refuse(`Certificate ${unreadable + 1} of the chain is not a readable X.509 certificate.`)
  }
  return null
}

const keyLabels = new Set(['PRIVATE KEY', 'ENCRYPTED PRIVATE KEY', 'RSA PRIVATE KEY', 'EC PRIVATE KEY'])

/** The one private key of `privateKeyPem`, decrypted with `passphrase` if it is encrypted. */
function readKey(input: UploadInput, errors: FieldErrors): KeyObject | null {
  const refuse = (message: string) => errors.add(problems.invalid_private_key_pem, at.key, message)
  const blocks = readPemBlocks(input.privateKeyPem)
  // `openssl ecparam -genkey` writes the curve's EC PARAMETERS before the key.
  const keys = blocks?.filter((block) => keyLabels.has(block.label)) ?? []
  const other = blocks?.find((block) => !keyLabels.has(block.label) && block.label !== 'EC PARAMETERS')
  const [block] = keys
  if (!blocks?.length) refuse('The key is not PEM text starting with -----BEGIN PRIVATE KEY-----.')
  else if (other) refuse(`The field holds a ${other.label} block; it takes one private key.`)
  else if (keys.length !== 1 || !block) refuse(`The field holds ${keys.length} private keys; it takes one.`)
  else if (isEncrypted(block)) return decryptKey(block, input.passphrase, errors)
  else {
    try {
      return createPrivateKey({ key: block.text, format: 'pem' })
    } catch (error) {
      if (isUnsupportedAlgorithm(error)) errors.add(problems.weak_key, at.key, unsupportedKeyMessage)
      else refuse(`The ${block.label} block is not a readable private key.`)
    }
  }
  return null
}

const unsupportedKeyMessage =
  'The private key is of a type browsers do not accept: use RSA or ECDSA (P-256, P-384, P-521).'

/** Whether a key block is encrypted: PKCS#8's own label, or OpenSSL's `Proc-Type` header on a traditional key. */
function isEncrypted(block: PemBlock): boolean {
  return block.label === 'ENCRYPTED PRIVATE KEY' || /ENCRYPTED/.test(block.headers['Proc-Type'] ?? '')
}

/** Whether the engine refused a key for its algorithm: Bun's BoringSSL reads no Ed448, secp256k1 or RSA-PSS key. */
function isUnsupportedAlgorithm(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ERR_OSSL_EVP_UNSUPPORTED_ALGORITHM'
}

/** An encrypted key, decrypted; its derivation cost is checked first, as the key file sets it. */
function decryptKey(block: PemBlock, passphrase: string | undefined, errors: FieldErrors): KeyObject | null {
  if (block.label === 'ENCRYPTED PRIVATE KEY') {
    const encryption = keyEncryptionOf(block.der)
    const refusal = !encryption
      ? 'The ENCRYPTED PRIVATE KEY block is not a readable encrypted key.'
      : 'unsupported' in encryption
        ? `The key is encrypted with a scheme the panel does not read (${encryption.unsupported}): re-encrypt it with PBKDF2 (openssl pkcs8 -topk8 -v2 aes-256-cbc) or upload it unencrypted.`
        : encryption.rounds > maxKeyDerivationRounds
          ? `The key's encryption asks for more than ${maxKeyDerivationRounds} key derivation rounds.`
          : null
    if (refusal) {
      errors.add(problems.invalid_private_key_pem, at.key, refusal)
      return null
    }
  }
  if (!passphrase) {
    errors.add(problems.private_key_passphrase_required, at.passphrase)
    return null
  }
  try {
    return createPrivateKey({ key: block.text, format: 'pem', passphrase })
  } catch (error) {
    // A wrong passphrase fails as a bad decrypt, or (one time in 256, when the padding happens to look right) as
    // an unreadable key: both mean the passphrase did not open it.
    if (isUnsupportedAlgorithm(error)) errors.add(problems.weak_key, at.key, unsupportedKeyMessage)
    else errors.add(problems.wrong_private_key_passphrase, at.passphrase)
    return null
  }
}

const curves: Readonly<Record<string, KeyType>> = {
  '1.2.840.10045.3.1.7': 'ec-p256',
  '1.3.132.0.34': 'ec-p384',
  '1.3.132.0.35': 'ec-p521',
}
const refusedAlgorithms: Readonly<Record<string, string>> = {
  '1.2.840.10040.4.1': 'a DSA key',
  '1.2.840.113549.1.1.10': 'an RSA-PSS key',
  '1.3.101.113': 'an Ed448 key',
}

/** The certificate's key type, or what its key is, to say why it is refused. */
function keyTypeOf(certificate: Certificate): { readonly keyType: KeyType } | { readonly refused: string } {
  const spki = publicKeyAlgorithmOf(certificate.der)
  const algorithm = spki?.algorithm ?? 'unknown'
  // Browsers do not take Ed25519 server certificates (nor Ed448): a site served with one is unreachable.
  if (algorithm === '1.3.101.112') return { refused: 'an Ed25519 key, which browsers do not accept' }
  if (algorithm === '1.2.840.10045.2.1') {
    const curve = spki?.curve ?? 'explicit parameters'
    const keyType = curves[curve]
    if (keyType) return { keyType }
    return { refused: `an EC key on the curve ${curve === '1.3.132.0.10' ? 'secp256k1' : curve}` }
  }
  if (algorithm !== '1.2.840.113549.1.1.1')
    return { refused: refusedAlgorithms[algorithm] ?? `a key of algorithm ${algorithm}` }
  let bits: number | undefined
  try {
    bits = certificate.node.publicKey.asymmetricKeyDetails?.modulusLength
  } catch {}
  if (!bits) return { refused: 'an unreadable RSA key' }
  return bits >= 2048 ? { keyType: `rsa-${bits}` } : { refused: `an RSA key of ${bits} bits` }
}

/** Checks the certificate itself; answers its key type when that key is acceptable. */
function checkLeaf(leaf: Certificate, selfSigned: boolean, now: Date, errors: FieldErrors): KeyType | null {
  const { notBefore, notAfter } = leaf.parsed
  if (now > notAfter)
    errors.add(
      problems.certificate_expired,
      at.certificate,
      `The certificate expired on ${notAfter.toISOString()}.`,
    )
  if (now < notBefore) {
    const message = `The certificate is valid from ${notBefore.toISOString()}.`
    errors.add(problems.certificate_not_yet_valid, at.certificate, message)
  }
  // A self-signed certificate accepted as such is its own trust anchor: `openssl req -x509` marks those CA:TRUE.
  const ca = leaf.parsed.getExtension(BasicConstraintsExtension)?.ca === true
  if (ca && !(selfSigned && isSelfSigned(leaf))) errors.add(problems.certificate_is_ca, at.certificate)
  // A CA given as the certificate names nothing anyway: certificate_is_ca says what is wrong.
  else if (dnsNamesOf(leaf).length === 0) {
    const message =
      'The certificate names no domain in a subjectAltName, and browsers ignore the common name: make it with subjectAltName=DNS:<domain> (openssl req -addext).'
    errors.add(problems.certificate_without_names, at.certificate, message)
  }
  const key = keyTypeOf(leaf)
  if ('keyType' in key) return key.keyType
  const message = `The certificate has ${key.refused}; accepted: RSA of 2048 bits or more, ECDSA P-256, P-384, P-521.`
  errors.add(problems.weak_key, at.certificate, message)
  return null
}

/** Whether `key` is the private half of the certificate's public key. */
function keyMatches(leaf: Certificate, key: KeyObject): boolean {
  try {
    return leaf.node.checkPrivateKey(key)
  } catch {
    return false
  }
}

/** Whether `parent` issued `child`: its subject is the child's issuer, and its key verifies the child's signature. */
function issued(child: Certificate, parent: Certificate): boolean {
  const sameName = Buffer.from(child.parsed.issuerName.toArrayBuffer()).equals(
    Buffer.from(parent.parsed.subjectName.toArrayBuffer()),
  )
  try {
    // checkIssued compares names as OpenSSL does (case and spaces folded) for CAs that re-encode them.
    return (sameName || child.node.checkIssued(parent.node)) && child.node.verify(parent.node.publicKey)
  } catch {
    // Bun throws on keys BoringSSL cannot read (secp256k1, RSA-PSS): such a certificate issued nothing here.
    return false
  }
}

function isSelfSigned(certificate: Certificate): boolean {
  return issued(certificate, certificate)
}

/** The chain as served: the intermediates in order, and whether the certificate was accepted as self-signed. */
interface CheckedChain {
  readonly served: readonly Certificate[]
  readonly status: 'complete' | 'self-signed'
}

/** Whether `certificate` may issue others: basicConstraints CA:TRUE, and keyCertSign if it limits its key's use. */
function isCertificationAuthority(certificate: Certificate): boolean {
  if (certificate.parsed.getExtension(BasicConstraintsExtension)?.ca !== true) return false
  const usages = certificate.parsed.getExtension(KeyUsagesExtension)
  return !usages || (usages.usages & KeyUsageFlags.keyCertSign) !== 0
}

/** The DNS names of the certificate's subjectAltName, lower-cased, each once. */
function dnsNamesOf(certificate: Certificate): string[] {
  const sans = certificate.parsed.getExtension(SubjectAlternativeNameExtension)
  const names = (sans?.names.items ?? []).filter((name) => name.type === 'dns')
  return [...new Set(names.map((name) => name.value.toLowerCase()))]
}

let systemRoots: readonly Certificate[] | null = null

/** The roots a chain may end below: those given, or the roots Node.js trusts (read once). */
function trustedRootsOf(given: UploadInput['trustedRoots']): readonly Certificate[] | 'any' {
  if (given === 'any') return 'any'
  const read = (pems: readonly string[]) =>
    pems
      .flatMap((pem) => (readPemBlocks(pem) ?? []).map((block) => readCertificate(block.der)))
      .filter((certificate): certificate is Certificate => certificate !== null)
  if (given) return read(given)
  systemRoots ??= read(rootCertificates)
  return systemRoots
}

/**
 * Orders the given certificates from the certificate up, each signed by the next, until a self-signed root or a
 * certificate whose issuer is not given; that one's issuer must then be a trusted root (clients hold roots, so a
 * chain may stop below one). Copies of the certificate and repeats are dropped; what is left over is refused as
 * strays.
 */
function checkChain(
  leaf: Certificate,
  given: readonly Certificate[],
  selfSigned: boolean,
  now: Date,
  trusted: readonly Certificate[] | 'any',
  errors: FieldErrors,
): CheckedChain {
  const seen = new Set([leaf.fingerprint])
  const pool = given.filter(
    (certificate) => !seen.has(certificate.fingerprint) && seen.add(certificate.fingerprint),
  )
  const path: Certificate[] = []
  let current = leaf
  while (!isSelfSigned(current)) {
    const index = pool.findIndex((candidate) => issued(current, candidate))
    const [issuer] = index < 0 ? [] : pool.splice(index, 1)
    if (!issuer) break
    path.push(issuer)
    current = issuer
  }
  const leafSelfSigned = path.length === 0 && isSelfSigned(leaf)
  const issuedByTrustedRoot =
    path.length === 0 && trusted !== 'any' && trusted.some((root) => issued(leaf, root))
  const missingIssuer = path.length === 0 && !leafSelfSigned && !issuedByTrustedRoot && trusted !== 'any'
  if (leafSelfSigned && !selfSigned) {
    const message =
      'The certificate is self-signed, which browsers do not trust; set selfSigned to upload it anyway.'
    errors.add(problems.incomplete_chain, at.certificate, message)
  } else if (missingIssuer) {
    const message = `The chain lacks the certificate that issued this one (${leaf.parsed.issuer}): add the intermediates your CA sent, or the root if a root issued it.`
    errors.add(problems.incomplete_chain, at.chain, message)
  }
  // A chain stopping below a root must stop below one clients hold: else a link is missing higher up.
  const top = path.at(-1)
  if (top && !isSelfSigned(top) && trusted !== 'any' && !trusted.some((root) => issued(top, root))) {
    const message = `The chain stops at ${top.parsed.subject}, whose issuer (${top.parsed.issuer}) is not a root browsers trust: add the intermediates up to one, or the root of your private CA.`
    errors.add(problems.incomplete_chain, at.chain, message)
  }
  // Only certification authorities issue certificates: clients refuse a chain through any other certificate.
  for (const issuer of path.filter((certificate) => !isCertificationAuthority(certificate))) {
    const message = `${issuer.parsed.subject} is not a certification authority (no CA:TRUE, or a key usage without keyCertSign): it cannot issue certificates clients accept.`
    errors.add(problems.chain_issuer_not_ca, at.chain, message)
  }
  // Without the certificate's issuer, the others may well sit above it: only a chain that leads somewhere has strays.
  if (pool.length > 0 && !missingIssuer) {
    const subjects = pool.map((certificate) => certificate.parsed.subject).join('; ')
    const message = `${pool.length} certificate(s) of the chain issue neither the certificate nor another certificate of its chain: ${subjects}.`
    errors.add(problems.chain_not_for_certificate, at.chain, message)
  }
  // Roots come from the client's trust store: serving one only adds bytes to every handshake.
  const served = path.filter((certificate) => !isSelfSigned(certificate))
  for (const certificate of served) {
    const { notBefore, notAfter, subject } = certificate.parsed
    if (now > notAfter) {
      const message = `The intermediate ${subject} expired on ${notAfter.toISOString()}.`
      errors.add(problems.certificate_expired, at.chain, message)
    }
    if (now < notBefore) {
      const message = `The intermediate ${subject} is valid from ${notBefore.toISOString()}.`
      errors.add(problems.certificate_not_yet_valid, at.chain, message)
    }
  }
  return { served, status: leafSelfSigned ? 'self-signed' : 'complete' }
}

/** A host name as certificates write it: lower-case ASCII (IDNA), without a final dot. */
function hostName(name: string): string {
  const lower = name.trim().toLowerCase().replace(/\.$/, '')
  return /[^\x20-\x7e]/.test(lower) ? domainToASCII(lower) : lower
}

/**
 * Whether a certificate for `names` serves `domain`, by the wildcard rule of RFC 6125 as browsers apply it: a
 * name matches itself, case aside; `*.example.com` matches exactly one more label (`a.example.com`, not
 * `example.com` nor `a.b.example.com`); `*` counts only as the whole left-most label, and never over a single
 * label (`*.com`). A Unicode `domain` is compared in its ASCII (punycode) form.
 * @example namesCover(['*.example.com'], 'Shop.Example.com') // true
 */
export function namesCover(names: readonly string[], domain: string): boolean {
  const wanted = hostName(domain)
  const dot = wanted.indexOf('.')
  // The label a wildcard stands for: non-empty, and not itself a wildcard.
  const parent = dot > 0 && !wanted.slice(0, dot).includes('*') ? wanted.slice(dot + 1) : null
  return (
    wanted !== '' &&
    names.some((given) => {
      const name = hostName(given)
      if (name === wanted) return true
      const base = name.startsWith('*.') ? name.slice(2) : null
      return base !== null && base === parent && base.includes('.') && !base.includes('*')
    })
  )
}
