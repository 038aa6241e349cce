// Domain names of sites: normalised to lower-case ASCII (punycode) and checked label by label.

const labelPattern = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/
const tldPattern = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/

/**
 * The canonical form of a domain (`Example.COM.` → `example.com`, `bücher.de` → `xn--bcher-kva.de`), or null
 * when it is not a fully qualified host name.
 */
export function normaliseDomain(input: string): string | null {
  const trimmed = input.trim().replace(/\.$/, '')
  // Anything URL-ish (scheme, port, path, credentials, spaces) is refused rather than guessed at.
  if (trimmed.length === 0 || /[\s/:@?#\\[\]%]/.test(trimmed)) return null
  let ascii: string
  try {
    ascii = new URL(`http://${trimmed}`).hostname
  } catch {
    return null
  }
  if (ascii.length > 253 || /^[0-9.]+$/.test(ascii)) return null
  const labels = ascii.split('.')
  if (labels.length < 2) return null
  if (!labels.every((label) => labelPattern.test(label))) return null
  return tldPattern.test(labels.at(-1) ?? '') ? ascii : null
}
