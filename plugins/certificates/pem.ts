// PEM text as uploads carry it, and the few DER fields the checks read that no crypto engine here reports safely.

/** One `-----BEGIN <label>-----` … `-----END <label>-----` block. */
export interface PemBlock {
  /** `CERTIFICATE`, `PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`, `RSA PRIVATE KEY`, ... */
  readonly label: string
  /** RFC 1421 headers before the body: `Proc-Type: 4,ENCRYPTED` marks an OpenSSL-encrypted traditional key. */
  readonly headers: Readonly<Record<string, string>>
  readonly der: Buffer
  /** The block as it was written, headers included, for engines that read PEM only (encrypted traditional keys). */
  readonly text: string
}

const beginMarker = /-----BEGIN /g
const blockPattern = /-----BEGIN ([A-Z0-9 ]{1,40})-----\r?\n([\s\S]*?)-----END \1-----/g
const headerLine = /^([A-Za-z][A-Za-z0-9-]*):\s*(.*)$/
const base64Body = /^[A-Za-z0-9+/]+={0,2}$/

/**
 * The PEM blocks of `text`, in order, or `null` when a block is broken (no matching END line, a body that is not
 * base64). Text between blocks is ignored, as OpenSSL does: tools write `subject=…` or `Bag Attributes` there.
 */
export function readPemBlocks(text: string): PemBlock[] | null {
  const blocks: PemBlock[] = []
  for (const match of text.matchAll(blockPattern)) {
    const [, label = '', inside = ''] = match
    const lines = inside.split(/\r?\n/)
    const headers: Record<string, string> = {}
    // Headers only exist when a blank line separates them from the body.
    const blank = lines.findIndex((line) => line.trim() === '')
    if (blank > 0 && lines.slice(0, blank).every((line) => headerLine.test(line))) {
      for (const line of lines.splice(0, blank + 1)) {
        const header = headerLine.exec(line)
        if (header?.[1]) headers[header[1]] = header[2] ?? ''
      }
    }
    const body = lines.join('').replace(/\s+/g, '')
    if (body.length % 4 !== 0 || !base64Body.test(body)) return null
    blocks.push({ label, headers, der: Buffer.from(body, 'base64'), text: match[0] })
  }
  // A BEGIN line the pattern did not pair with its END is a truncated or mangled paste.
  if ([...text.matchAll(beginMarker)].length !== blocks.length) return null
  return blocks
}

/** `der` as a PEM block with 64-character lines and a final newline. */
export function toPem(label: string, der: Uint8Array): string {
  const body = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '')
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`
}

/** A DER element: its tag and where its contents lie in the buffer. */
interface DerElement {
  readonly tag: number
  readonly start: number
  readonly end: number
}

/** The element at `at`, or `null` past `limit` or when its length is not DER (indefinite, over 4 bytes). */
function elementAt(der: Uint8Array, at: number, limit: number): DerElement | null {
  const tag = der[at]
  let length = der[at + 1]
  if (tag === undefined || length === undefined) return null
  let start = at + 2
  if (length & 0x80) {
    const bytes = length & 0x7f
    if (bytes === 0 || bytes > 4) return null
    length = 0
    for (let i = 0; i < bytes; i++) length = length * 256 + (der[start + i] ?? Number.NaN)
    start += bytes
  }
  const end = start + length
  return Number.isNaN(end) || end > limit ? null : { tag, start, end }
}

/** The elements inside a constructed `element` (the whole buffer when none is given). */
function childrenOf(der: Uint8Array, element?: DerElement): DerElement[] {
  const children: DerElement[] = []
  let at = element?.start ?? 0
  const limit = element?.end ?? der.length
  while (at < limit) {
    const child = elementAt(der, at, limit)
    if (!child) return []
    children.push(child)
    at = child.end
  }
  return children
}

/** An OBJECT IDENTIFIER element in dotted form (`1.2.840.10045.3.1.7`), or `null` for anything else. */
function oidOf(der: Uint8Array, element: DerElement | undefined): string | null {
  if (element?.tag !== 0x06 || element.end === element.start) return null
  const arcs: number[] = []
  let value = 0
  for (let i = element.start; i < element.end; i++) {
    const byte = der[i] ?? 0
    value = value * 128 + (byte & 0x7f)
    if (byte & 0x80) continue
    if (arcs.length === 0)
      arcs.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80)
    else arcs.push(value)
    value = 0
  }
  return arcs.join('.')
}

/** A non-negative INTEGER element as a number (`Infinity` past 2^48, enough for any cap), or `null`. */
function integerOf(der: Uint8Array, element: DerElement | undefined): number | null {
  if (element?.tag !== 0x02 || element.end === element.start) return null
  if (element.end - element.start > 7) return Number.POSITIVE_INFINITY
  let value = 0
  for (let i = element.start; i < element.end; i++) value = value * 256 + (der[i] ?? 0)
  return value
}

/** The algorithm of a certificate's public key: its OID, and the named curve's OID for an EC key. */
export interface PublicKeyAlgorithm {
  readonly algorithm: string
  readonly curve: string | null
}

/**
 * The public key algorithm of a DER certificate, read from its SubjectPublicKeyInfo, or `null` if unreadable.
 * Read here because Bun's crypto throws on keys it does not support (secp256k1, Ed448, RSA-PSS): those must be
 * refused as keys, not as unreadable certificates.
 */
export function publicKeyAlgorithmOf(certificate: Uint8Array): PublicKeyAlgorithm | null {
  const [outer] = childrenOf(certificate)
  const [tbs] = outer ? childrenOf(certificate, outer) : []
  const fields = tbs ? childrenOf(certificate, tbs) : []
  // The version is an optional explicit [0]; the key info follows serial, signature, issuer, validity, subject.
  const spki = fields[fields[0]?.tag === 0xa0 ? 6 : 5]
  const [identifier] = spki ? childrenOf(certificate, spki) : []
  const [oid, parameters] = identifier ? childrenOf(certificate, identifier) : []
  const algorithm = oidOf(certificate, oid)
  return algorithm ? { algorithm, curve: oidOf(certificate, parameters) } : null
}

const pbes2 = '1.2.840.113549.1.5.13'
const pbkdf2 = '1.2.840.113549.1.5.12'
/** PBES1 (PKCS #5) and PKCS #12 password-based schemes: their parameters are a salt and an iteration count. */
const saltAndCountSchemes = /^1\.2\.840\.113549\.1\.(5\.(1|3|4|6|10|11)|12\.1\.[1-6])$/

/** How an ENCRYPTED PRIVATE KEY derives its key: the rounds it asks for, or a scheme the checks do not read. */
export type KeyEncryption = { readonly rounds: number } | { readonly unsupported: string }

/**
 * The key derivation of a DER EncryptedPrivateKeyInfo (RFC 5958), or `null` if unreadable. The checks read it
 * before decrypting: the key file chooses the PBKDF2 iteration count, and a count of billions would hold a
 * request's thread for minutes.
 */
export function keyEncryptionOf(der: Uint8Array): KeyEncryption | null {
  const [outer] = childrenOf(der)
  const [identifier] = outer ? childrenOf(der, outer) : []
  const [oid, parameters] = identifier ? childrenOf(der, identifier) : []
  const scheme = oidOf(der, oid)
  if (!scheme || !parameters) return null
  if (saltAndCountSchemes.test(scheme)) {
    const rounds = integerOf(der, childrenOf(der, parameters)[1])
    return rounds === null ? null : { rounds }
  }
  if (scheme !== pbes2) return { unsupported: scheme }
  const [derivation] = childrenOf(der, parameters)
  const [kdf, kdfParameters] = derivation ? childrenOf(der, derivation) : []
  const kdfOid = oidOf(der, kdf)
  if (kdfOid !== pbkdf2) return kdfOid ? { unsupported: kdfOid } : null
  const rounds = kdfParameters ? integerOf(der, childrenOf(der, kdfParameters)[1]) : null
  return rounds === null ? null : { rounds }
}
