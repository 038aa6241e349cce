// Conditional requests (RFC 9110 §13): an ETag on single-resource reads, 304 for If-None-Match, 412 for If-Match.

import type { RouteDefinition } from '../plugin/route.ts'

/**
 * Whether the kernel tags `route`'s answers (an `ETag`, 304 for `If-None-Match`): a single-resource read answering
 * JSON. Not a stream, nor other bytes (a 200 with a `contentType`): an event stream has no representation to tag
 * until it ends, which is after its headers left. A route with `ownPreconditions` tags its answers itself.
 */
export function taggedByKernel(route: RouteDefinition): boolean {
  return (
    route.method === 'GET' &&
    !route.list &&
    !route.ownPreconditions &&
    route.responses?.[200]?.contentType === undefined
  )
}

/** The strong entity tag of a JSON representation: the same bytes, the same tag. */
export function entityTagOf(body: string): string {
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
