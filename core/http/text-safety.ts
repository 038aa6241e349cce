// Text the store cannot keep as sent: NUL, and UTF-16 surrogates without their pair (read back as U+FFFD).

import type { ProblemItem } from '../problem/problem.ts'

const message = 'must not contain NUL or unpaired surrogate characters'

/** Whether `text` survives storage unchanged. */
export function isStorableText(text: string): boolean {
  return text.isWellFormed() && !text.includes('\u0000')
}

/**
 * An item for every string of a parsed JSON value (object keys too) that holds NUL or a lone surrogate, at its
 * location (`body.name`); at most 50, as validation's own.
 */
export function unstorableTextItems(
  value: unknown,
  location: string,
  found: ProblemItem[] = [],
): ProblemItem[] {
  if (found.length >= 50) return found
  if (typeof value === 'string') {
    if (!isStorableText(value)) found.push({ location, message, code: 'invalid_characters' })
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => {
      unstorableTextItems(item, `${location}.${index}`, found)
    })
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (!isStorableText(key))
        found.push({ location: `${location}.${key}`, message, code: 'invalid_characters' })
      else unstorableTextItems(item, `${location}.${key}`, found)
    }
  }
  return found
}

/**
 * Items for query parameters whose percent-escapes are not UTF-8 (URLSearchParams would silently make them
 * U+FFFD) or that decode to NUL. Only a query with `%` can hold either.
 */
export function unstorableQueryItems(href: string): ProblemItem[] {
  const mark = href.indexOf('?')
  if (mark < 0 || !href.includes('%', mark)) return []
  const end = href.indexOf('#', mark)
  const found: ProblemItem[] = []
  for (const pair of href.slice(mark + 1, end < 0 ? undefined : end).split('&')) {
    const [rawName = '', rawValue = ''] = pair.split('=', 2)
    let name = rawName
    try {
      name = decodeURIComponent(rawName.replaceAll('+', ' '))
      const value = decodeURIComponent(rawValue.replaceAll('+', ' '))
      if (isStorableText(name) && isStorableText(value)) continue
    } catch {
      // Not UTF-8: refused below, like NUL.
    }
    found.push({ location: `query.${name}`, message, code: 'invalid_characters' })
    if (found.length >= 50) break
  }
  return found
}
