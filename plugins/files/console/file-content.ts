// Reading and writing a text file of a site for the editor: the bytes with their entity tag, decoded as UTF-8
// (anything that is not is reported as binary rather than mangled), and saves that replace only the copy read.

import { rawRequest } from '../../console/kit.ts'
import type { Schemas } from './api.ts'
import { filesApi } from './paths.ts'

type SiteFile = Schemas['SiteFile']

/** Files larger than this open as a download, not in the editor. */
export const editableBytes = 2 * 1024 * 1024

/** A file as the editor holds it. */
export type EditableContent =
  | { readonly kind: 'text'; readonly text: string; readonly etag: string | null; readonly crlf: boolean }
  | { readonly kind: 'binary' }

/** Reads the file at `path`; `binary` when it is not UTF-8 text (or holds NUL bytes). */
export async function readContent(siteId: string, path: string): Promise<EditableContent> {
  const response = await rawRequest(filesApi(siteId, `/content?path=${encodeURIComponent(path)}`), {
    method: 'GET',
  })
  const bytes = new Uint8Array(await response.arrayBuffer())
  if (bytes.includes(0)) return { kind: 'binary' }
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return { kind: 'binary' }
  }
  // A browser's text box turns CRLF into LF; a file written with CRLF is saved with CRLF again.
  const crlf = text.includes('\r\n') && !/(^|[^\r])\n/.test(text)
  return { kind: 'text', text, etag: response.headers.get('ETag'), crlf }
}

/** Saves `text` over the file if it still has `etag` (412 `file_changed` otherwise); the new file and tag. */
export async function saveContent(
  siteId: string,
  path: string,
  text: string,
  etag: string | null,
  crlf: boolean,
): Promise<{ file: SiteFile; etag: string | null }> {
  const response = await rawRequest(filesApi(siteId, `/content?path=${encodeURIComponent(path)}`), {
    method: 'PUT',
    // Without a tag (a file read with none), only an existing file is replaced.
    headers: { 'Content-Type': 'application/octet-stream', 'If-Match': etag ?? '*' },
    body: crlf ? text.replace(/\r?\n/g, '\r\n') : text,
  })
  const file = (await response.json()) as SiteFile
  return { file, etag: response.headers.get('ETag') ?? file.etag }
}
