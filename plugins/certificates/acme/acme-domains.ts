// The domains an ACME certificate is asked for, as sites keep domains: lower-case ASCII, IDNs in punycode.

/** `Shop.Example.com.` → `shop.example.com`, `bücher.de` → `xn--bcher-kva.de`; null for what is no host name. */
export function acmeDomainOf(input: string): string | null {
  const trimmed = input.trim().replace(/\.$/, '')
  if (trimmed.length === 0 || /[\s/:@?#\\[\]%]/.test(trimmed)) return null
  try {
    const ascii = new URL(`http://${trimmed.replaceAll('*', 'x')}`).hostname
    return trimmed.startsWith('*.') ? `*.${ascii.slice(2)}` : ascii.includes('.') ? ascii : null
  } catch {
    return null
  }
}
