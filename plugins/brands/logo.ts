// Checks a brand's logo for real: a base64 data URL of an accepted image type whose bytes are that type, small
// enough, and for SVG nothing that runs or loads. The console shows it in an <img> under a strict CSP, where an
// SVG can do neither; these checks hold even where a logo ends up somewhere less careful.

/** The most bytes a logo may have once decoded: 128 KiB. */
export const logoLimitBytes = 128 * 1024

/** The longest `logo` string a body may carry: the data URL of a logo of {@link logoLimitBytes} has room to spare. */
export const logoMaxLength = 256 * 1024

/** The image types a logo may have. */
export const logoTypes = ['image/png', 'image/jpeg', 'image/webp', 'image/svg+xml'] as const
type LogoType = (typeof logoTypes)[number]

/** Why a logo is refused: one of the plugin's problem codes, and what to tell the client. */
export interface LogoRefusal {
  readonly code: 'invalid_logo' | 'logo_type_mismatch' | 'logo_too_large' | 'unsafe_svg_logo'
  readonly message: string
}

const dataUrlPattern = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/]*={0,2})$/i

const typeNames: Readonly<Record<LogoType, string>> = {
  'image/png': 'a PNG image',
  'image/jpeg': 'a JPEG image',
  'image/webp': 'a WebP image',
  'image/svg+xml': 'an SVG image',
}

/** The raster type whose signature `bytes` start with, if any. */
function rasterTypeOf(bytes: Uint8Array): LogoType | null {
  const starts = (prefix: readonly number[], at = 0) =>
    prefix.every((byte, index) => bytes[at + index] === byte)
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png'
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg'
  // RIFF, a little-endian size, then WEBP.
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp'
  return null
}

/**
 * The logo as stored (`data:` and its type in lower case), or why it is refused. Checks, in order: the form of the
 * data URL and its type, the decoded size, the bytes against the declared type, and an SVG's content.
 */
export function checkLogo(given: string): { readonly logo: string } | { readonly refused: LogoRefusal } {
  const match = dataUrlPattern.exec(given)
  if (!match) return refused('invalid_logo', 'must be a base64 data: URL (data:image/png;base64,…)')
  const type = (match[1] ?? '').toLowerCase()
  const data = match[2] ?? ''
  if (!(logoTypes as readonly string[]).includes(type))
    return refused('invalid_logo', `has the type ${type}; a logo is PNG, JPEG, WebP or SVG`)
  const size = (data.length / 4) * 3 - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0)
  if (data.length % 4 !== 0) return refused('invalid_logo', 'is not valid base64')
  if (size > logoLimitBytes)
    return refused('logo_too_large', `has ${size} bytes; a logo is at most ${logoLimitBytes} bytes (128 KiB)`)
  const bytes = Buffer.from(data, 'base64')
  // Node's decoder skips what it does not understand: only base64 that encodes back to itself is accepted.
  if (bytes.length === 0 || bytes.toString('base64') !== data)
    return refused('invalid_logo', 'is not valid base64 (or is empty)')
  const declared = type as LogoType
  const found = rasterTypeOf(bytes)
  if (declared !== 'image/svg+xml') {
    if (found === declared) return { logo: `data:${declared};base64,${data}` }
    const what = found ? `are ${typeNames[found]}` : `are not ${typeNames[declared]}`
    return refused('logo_type_mismatch', `is declared ${declared}, but its bytes ${what}`)
  }
  if (found)
    return refused('logo_type_mismatch', `is declared image/svg+xml, but its bytes are ${typeNames[found]}`)
  const text = svgText(bytes)
  if (text === null)
    return refused(
      'logo_type_mismatch',
      'is declared image/svg+xml, but its bytes are not SVG text (UTF-8, an <svg> element)',
    )
  const unsafe = unsafeSvgReason(text)
  if (unsafe) return refused('unsafe_svg_logo', unsafe)
  return { logo: `data:${declared};base64,${data}` }
}

function refused(code: LogoRefusal['code'], message: string): { readonly refused: LogoRefusal } {
  return { refused: { code, message: `The logo ${message}.` } }
}

/** The SVG's text when the bytes are UTF-8 holding an `<svg>` element, else null. */
function svgText(bytes: Uint8Array): string | null {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
  } catch {
    return null
  }
  return text.trimStart().startsWith('<') && /<(?:[a-z_][\w.-]*:)?svg[\s/>]/i.test(text) ? text : null
}

/** Elements that run code or embed other documents, in any namespace prefix. */
const embeddingElement =
  /<\s*(?:[a-z_][\w.-]*:)?(script|foreignobject|iframe|embed|object|handler|listener|audio|video|frame|frameset|applet|meta|link|base)\b/

/** Character references, decoded so that `&#106;avascript:` reads as what a browser would take it for. */
function decodeReferences(text: string): string {
  const named: Readonly<Record<string, string>> = {
    lt: '<',
    gt: '>',
    quot: '"',
    apos: "'",
    amp: '&',
    colon: ':',
    tab: '\t',
    newline: '\n',
    lpar: '(',
    rpar: ')',
  }
  let current = text
  // A few rounds: `&amp;#106;` is `&#106;` after one, which a careless consumer might decode again.
  for (let round = 0; round < 3; round++) {
    const next = current.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);?/gi, (whole, reference: string) => {
      const lower = reference.toLowerCase()
      if (lower.startsWith('#')) {
        const point = lower.startsWith('#x')
          ? Number.parseInt(lower.slice(2), 16)
          : Number.parseInt(lower.slice(1), 10)
        return point > 0 && point <= 0x10ffff ? String.fromCodePoint(point) : ''
      }
      return named[lower] ?? whole
    })
    if (next === current) break
    current = next
  }
  return current
}

/** `text` without whitespace and control characters, which browsers skip inside URLs (`java\tscript:`). */
function squeezed(text: string): string {
  let out = ''
  for (const character of text) if ((character.codePointAt(0) ?? 0) > 0x20) out += character
  return out
}

/** Why an SVG could run something or reach outside itself, or null. Errs on the side of refusing. */
export function unsafeSvgReason(text: string): string | null {
  const decoded = decodeReferences(text).toLowerCase()
  const element = embeddingElement.exec(decoded)?.[1]
  if (element) return `contains a <${element}> element`
  if (decoded.includes('<!entity')) return 'declares entities'
  if (decoded.includes('<?xml-stylesheet')) return 'loads a style sheet'
  const handler = /[\s"'/:;]on[a-z0-9_.:-]*\s*=/.exec(decoded)
  if (handler) return `has an event handler attribute (${handler[0].slice(1).replace(/\s*=$/, '')})`
  // An animation may set an attribute to what the checks below would refuse in the markup itself.
  if (/attributename\s*=\s*["']?\s*(?:[a-z_][\w.-]*:)?(?:href|on|src)/.test(decoded))
    return 'animates a reference or an event handler'
  const flat = squeezed(decoded)
  for (const scheme of ['javascript:', 'vbscript:', 'livescript:'])
    if (flat.includes(scheme)) return `contains a ${scheme} URL`
  for (const reference of decoded.matchAll(/\b((?:[a-z_][\w.-]*:)?(?:href|src[a-z]*))\s*=\s*(["']?)/g)) {
    const start = (reference.index ?? 0) + reference[0].length
    if (!squeezed(decoded.slice(start, start + 64)).startsWith('#'))
      return `refers to another resource (${reference[1]} not to a #fragment of the image)`
  }
  for (const reference of decoded.matchAll(/url\s*\(\s*(["']?)/g)) {
    const start = (reference.index ?? 0) + reference[0].length
    if (!squeezed(decoded.slice(start, start + 64)).startsWith('#'))
      return 'refers to another resource (a CSS url() not to a #fragment of the image)'
  }
  if (/@\s*(?:import|\\)/.test(decoded) || decoded.includes('image-set('))
    return 'loads a style sheet or image'
  return null
}
