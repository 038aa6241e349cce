// Keys and certificates made fresh for each test run, so the repository holds no key material: a test CA for
// any plugin that speaks TLS (certificates, a node's HTTPS, a webhook receiver over HTTPS).

import 'reflect-metadata'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  BasicConstraintsExtension,
  type Extension,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectAlternativeNameExtension,
  X509CertificateGenerator,
} from '@peculiar/x509'

/** `der` as a PEM block of `label`. */
function toPem(label: string, der: Uint8Array): string {
  const body = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '')
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`
}

/** A key the fixtures make with WebCrypto. */
export type KeySpec =
  | { readonly rsa: number }
  | { readonly ec: 'P-256' | 'P-384' | 'P-521' }
  | { readonly ed25519: true }

/** A made certificate with its key. */
export interface Made {
  /** The certificate, one PEM block. */
  readonly pem: string
  /** Its key as unencrypted PKCS#8 PEM. */
  readonly keyPem: string
  /** The key pair, to sign further certificates with; absent for keys made by the openssl CLI. */
  readonly keys?: CryptoKeyPair
  /** The subject, as given (`CN=Test Root`). */
  readonly subject: string
}

const day = 86_400_000

/** A fresh extractable key pair. */
export async function makeKeys(spec: KeySpec = { ec: 'P-256' }): Promise<CryptoKeyPair> {
  const algorithm =
    'rsa' in spec
      ? {
          name: 'RSASSA-PKCS1-v1_5',
          modulusLength: spec.rsa,
          publicExponent: new Uint8Array([1, 0, 1]),
          hash: 'SHA-256',
        }
      : 'ec' in spec
        ? { name: 'ECDSA', namedCurve: spec.ec }
        : { name: 'Ed25519' }
  return (await crypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as CryptoKeyPair
}

/** The private key of `keys` as unencrypted PKCS#8 PEM. */
export async function keyPemOf(keys: CryptoKeyPair): Promise<string> {
  return toPem('PRIVATE KEY', new Uint8Array(await crypto.subtle.exportKey('pkcs8', keys.privateKey)))
}

/** A key pair made outside WebCrypto: its DER SubjectPublicKeyInfo and PEM private key. */
export interface ForeignKey {
  readonly spki: Uint8Array<ArrayBuffer>
  readonly keyPem: string
}

/** What a certificate is made with; everything but `subject` has a default. */
export interface CertificateOptions {
  /** `CN=…` and friends, in certificate order. */
  readonly subject: string
  /** The issuer; default: the certificate signs itself. */
  readonly issuer?: Made
  /** Its key pair; default a new P-256 key. */
  readonly keys?: CryptoKeyPair | KeySpec
  /** A public key made elsewhere (DER SubjectPublicKeyInfo) with its PEM private key, for keys WebCrypto lacks. */
  readonly foreignKey?: ForeignKey
  /** basicConstraints CA:TRUE; default false (CA:FALSE). */
  readonly ca?: boolean
  /**
   * DNS subjectAltNames, as CAs issue them; default the common name's for a certificate that is no CA
   * (`CN=shop.example.com`), none for a CA. `[]`: no subjectAltName extension.
   */
  readonly names?: readonly string[]
  /** Default one day ago. */
  readonly notBefore?: Date
  /** Default thirty days on. */
  readonly notAfter?: Date
  /** Hex; default random. */
  readonly serial?: string
}

/** The algorithm a key signs certificates with: SHA-384 for P-384 keys, SHA-256 otherwise. */
function signingAlgorithmOf(key: CryptoKey): Algorithm & { hash?: string } {
  const curve = (key.algorithm as EcKeyAlgorithm).namedCurve
  return {
    name: key.algorithm.name,
    hash: curve === 'P-384' ? 'SHA-384' : curve === 'P-521' ? 'SHA-512' : 'SHA-256',
  }
}

/** A certificate signed by `options.issuer`, or by itself. */
export async function makeCertificate(options: CertificateOptions): Promise<Made> {
  const given = options.keys
  const keys = options.foreignKey ? undefined : given && 'privateKey' in given ? given : await makeKeys(given)
  const signer = options.issuer?.keys ?? keys
  if (!signer) throw new Error('A certificate with a foreign key needs an issuer made with WebCrypto')
  const now = Date.now()
  const extensions: Extension[] = [
    new BasicConstraintsExtension(options.ca ?? false, undefined, true),
    new KeyUsagesExtension(
      options.ca ? KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign : KeyUsageFlags.digitalSignature,
      true,
    ),
  ]
  const commonName = /(?:^|,\s*)CN=([A-Za-z0-9.*-]+\.[A-Za-z0-9-]+)$/.exec(options.subject)?.[1]
  const names = options.names ?? (options.ca || !commonName ? [] : [commonName.toLowerCase()])
  if (names.length)
    extensions.push(
      new SubjectAlternativeNameExtension(names.map((value) => ({ type: 'dns' as const, value }))),
    )
  const certificate = await X509CertificateGenerator.create({
    ...(options.serial ? { serialNumber: options.serial } : {}),
    subject: options.subject,
    issuer: options.issuer?.subject ?? options.subject,
    notBefore: options.notBefore ?? new Date(now - day),
    notAfter: options.notAfter ?? new Date(now + 30 * day),
    publicKey: options.foreignKey?.spki ?? (keys as CryptoKeyPair).publicKey,
    signingKey: signer.privateKey,
    signingAlgorithm: signingAlgorithmOf(signer.privateKey),
    extensions,
  })
  return {
    // A final newline, as files have it, so PEM texts can be concatenated.
    pem: `${certificate.toString('pem')}\n`,
    keyPem: options.foreignKey?.keyPem ?? (await keyPemOf(keys as CryptoKeyPair)),
    ...(keys ? { keys } : {}),
    subject: options.subject,
  }
}

/** A root CA (RSA 2048), an intermediate it issued (P-384), and a leaf for `shop.example.com` and `*.example.com`. */
export interface Hierarchy {
  readonly root: Made
  readonly intermediate: Made
  readonly leaf: Made
}

/** Makes a fresh hierarchy; the names default to a test CA's. */
export async function makeHierarchy(
  names: readonly string[] = ['Shop.Example.com', '*.example.com'],
): Promise<Hierarchy> {
  const root = await makeCertificate({
    subject: 'C=FR, O=Plinth Tests, CN=Test Root',
    keys: { rsa: 2048 },
    ca: true,
  })
  const intermediate = await makeCertificate({
    subject: 'C=FR, O=Plinth Tests, CN=Test Intermediate',
    issuer: root,
    keys: { ec: 'P-384' },
    ca: true,
  })
  const leaf = await makeCertificate({ subject: 'CN=shop.example.com', issuer: intermediate, names })
  return { root, intermediate, leaf }
}

/** Runs the openssl CLI with `input` on stdin; its stdout, or a thrown error with its stderr. */
export function openssl(args: readonly string[], input?: string | Uint8Array): Buffer {
  const run = spawnSync('openssl', args, { input, maxBuffer: 1 << 20 })
  if (run.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${run.stderr.toString()}`)
  return run.stdout
}

/**
 * A key WebCrypto cannot make (DSA, secp256k1, Ed448, RSA-PSS), made by `openssl genpkey` with `args`
 * (`['-algorithm', 'ED448']`): its PEM private key and DER public key.
 */
export function opensslKey(args: readonly string[]): ForeignKey {
  // DSA keys need their parameters made first.
  const dsa = args.includes('DSA')
  const parameters = dsa ? openssl(['genpkey', '-genparam', ...args]).toString() : undefined
  const keyPem = openssl(['genpkey', ...(dsa ? ['-paramfile', '/dev/stdin'] : args)], parameters).toString()
  return { keyPem, spki: Uint8Array.from(openssl(['pkey', '-pubout', '-outform', 'DER'], keyPem)) }
}

/**
 * `keyPem` encrypted with `passphrase` by the openssl CLI: PKCS#8 with PBES2/PBKDF2 of `rounds` (default
 * OpenSSL's 2048), or OpenSSL's traditional `Proc-Type: 4,ENCRYPTED` PEM with `traditional`.
 */
export function encryptKey(
  keyPem: string,
  passphrase: string,
  options: { readonly rounds?: number; readonly traditional?: boolean } = {},
): string {
  const folder = mkdtempSync(join(tmpdir(), 'plinth-key-'))
  try {
    // The passphrase goes through a file: on the command line every process could read it.
    const passFile = join(folder, 'pass')
    writeFileSync(passFile, passphrase, { mode: 0o600 })
    const args = options.traditional
      ? ['pkey', '-traditional', '-aes-256-cbc', '-passout', `file:${passFile}`]
      : [
          'pkcs8',
          '-topk8',
          '-v2',
          'aes-256-cbc',
          '-iter',
          String(options.rounds ?? 2048),
          '-passout',
          `file:${passFile}`,
        ]
    return openssl(args, keyPem).toString()
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}

/** What `openssl x509 -fingerprint -sha256` and `-serial` print for `pem`. */
export function opensslFacts(pem: string): { readonly fingerprint: string; readonly serial: string } {
  const out = openssl(['x509', '-noout', '-fingerprint', '-sha256', '-serial'], pem).toString()
  return {
    fingerprint: /Fingerprint=([0-9A-F:]+)/i.exec(out)?.[1] ?? '',
    serial: /serial=([0-9A-F]+)/i.exec(out)?.[1] ?? '',
  }
}
