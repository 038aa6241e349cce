// Conditional requests (RFC 9110 §13): an ETag on single-resource reads, 304 for If-None-Match, 412 for If-Match.

/** The strong entity tag of a representation (JSON, text or bytes): the same bytes, the same tag. */
export function entityTagOf(body: string | Uint8Array): string {
  return `"${Bun.hash(body).toString(36)}"`
}

/** The entity tags of an If-Match or If-None-Match header: `*`, or the tags listed (weak ones marked). */
function listedTags(header: string): '*' | { readonly tag: string; readonly weak: boolean }[] {
  if (header.trim() === '*') return '*'
  return [...header.matchAll(/(W\/)?("[^"]*")/g)].map((match) => ({
    tag: match[2] ?? '',
    weak: match[1] !== undefined,
  }))
}

/** If-None-Match (weak comparison): whether the client's copy is current, so a GET may answer 304. */
export function clientHasCurrent(ifNoneMatch: string | null, current: string): boolean {
  if (ifNoneMatch === null) return false
  const tags = listedTags(ifNoneMatch)
  return tags === '*' || tags.some(({ tag }) => tag === current)
}

/** If-Match (strong comparison): whether a change may go ahead; a weak tag never matches. */
export function changeMayProceed(ifMatch: string, current: string): boolean {
  const tags = listedTags(ifMatch)
  return tags === '*' || tags.some(({ tag, weak }) => !weak && tag === current)
}
