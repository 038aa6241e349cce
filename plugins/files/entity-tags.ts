// Entity tags of site files as HTTP compares them (RFC 9110 §13.1): `If-Match` strongly (a save must find exactly the
// file it read), `If-None-Match` weakly (`W/` ignored), each a list or `*`.

/** Whether `If-Match` matches the file's tag (null: no file, which nothing but... nothing matches). */
export function ifMatchHolds(header: string, etag: string | null): boolean {
  if (etag === null) return false
  if (header.trim() === '*') return true
  return header.split(',').some((tag) => tag.trim() === etag)
}

/** Whether `If-None-Match` names the file (so a read answers 304, a create is refused). */
export function ifNoneMatchNames(header: string, etag: string | null): boolean {
  if (etag === null) return false
  if (header.trim() === '*') return true
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '')
  return header.split(',').some((tag) => opaque(tag) === opaque(etag))
}
