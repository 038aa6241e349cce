// A site's file as an HTTP answer: whole or one byte range, streamed from the node a part at a time (never held
// whole), always as an attachment of no type a browser would run, and cut off if the file changes meanwhile.

import { Problem, Reply } from '../../core/index.ts'
import { ifNoneMatchNames } from './entity-tags.ts'
import { filesProblems as problems } from './problems.ts'
import { type FilePart, partBytes } from './protocol.ts'
import type { SiteFiles } from './site-files.ts'

/** The request headers a read of a file answers, as the routes that read files declare them. */
export const fileReadHeaders = {
  'If-None-Match': {
    description: 'The file’s `ETag` the client holds: 304 without a body while it is current.',
  },
  Range: {
    description:
      'One byte range, `bytes=start-end`, `bytes=start-` or `bytes=-suffix`: 206 with that part, 416 when it starts past the end. Several ranges or another unit are ignored: the whole file answers.',
  },
  'If-Range': {
    description:
      'The file’s `ETag`: the `Range` applies only while the file still has it, else the whole file answers.',
  },
} as const

/** The bytes asked for: `start` to `end` inclusive. */
interface ByteRange {
  readonly start: number
  readonly end: number
}

/**
 * The one range of `Range: bytes=…` within a file of `size` bytes; null for no header or one the server may
 * ignore (several ranges, another unit); 416 when it starts past the end.
 */
export function rangeOf(header: string | null, size: number): ByteRange | null {
  const match = header === null ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (!match) return null
  const [, from = '', to = ''] = match
  if (from === '' && to === '') return null
  if (from === '') {
    // A suffix: the last `n` bytes; none of an empty file, nor a zero-length suffix, can be given.
    const suffix = Number(to)
    if (suffix === 0 || size === 0) throw unsatisfiable(size)
    return { start: Math.max(0, size - suffix), end: size - 1 }
  }
  const start = Number(from)
  // `bytes=3-1` is no valid range: ignored (RFC 9110 §14.1.1), the whole file answers.
  if (to !== '' && Number(to) < start) return null
  if (start >= size) throw unsatisfiable(size)
  return { start, end: to === '' ? size - 1 : Math.min(Number(to), size - 1) }
}

const unsatisfiable = (size: number) =>
  new Problem(problems.range_not_satisfiable, {
    headers: { 'content-range': `bytes */${size}` },
    extensions: { sizeBytes: size },
  })

/** `filename*` for Content-Disposition (RFC 6266/8187), with a plain ASCII fallback. */
function disposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%;]/g, '_') || 'file'
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`
}

/** Options of {@link fileAnswer}. */
export interface FileAnswerOptions {
  /** The most bytes one answer carries: a whole file larger is refused, a range is cut to it. */
  readonly limitBytes: number
  readonly signal: AbortSignal
}

/**
 * The answer for `path` of `files` to `request`: 304 when `If-None-Match` names its tag, 206 for a `Range`, else
 * 200; refused when larger than `limitBytes` without a range. The first part is read before answering (so a
 * refusal is a problem, not a broken stream); the rest as the client reads.
 */
export async function fileAnswer(
  files: SiteFiles,
  path: string,
  request: Request,
  options: FileAnswerOptions,
): Promise<Reply> {
  const first = await files.call<FilePart>({ op: 'read', path, offset: 0, length: 0 })
  const { entry } = first
  const size = entry.size
  const headers: Record<string, string> = {
    etag: entry.etag ?? '',
    'accept-ranges': 'bytes',
    'last-modified': new Date(entry.modifiedAt).toUTCString(),
    'cache-control': 'private, no-cache',
    'content-type': 'application/octet-stream',
    'content-disposition': disposition(entry.name),
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; sandbox",
  }
  const ifNoneMatch = request.headers.get('if-none-match')
  if (ifNoneMatch !== null && ifNoneMatchNames(ifNoneMatch, entry.etag))
    return new Reply(304, undefined, headers)
  const ifRange = request.headers.get('if-range')
  const range = ifRange && ifRange !== entry.etag ? null : rangeOf(request.headers.get('range'), size)
  if (!range && size > options.limitBytes)
    throw new Problem(problems.file_too_large, {
      extensions: { sizeBytes: size, limitBytes: options.limitBytes },
    })
  const start = range?.start ?? 0
  const end = range ? Math.min(range.end, start + options.limitBytes - 1) : size - 1
  const length = Math.max(0, end - start + 1)
  headers['content-length'] = String(length)
  if (range) headers['content-range'] = `bytes ${start}-${end}/${size}`

  let offset = start
  /** The next part, asked for while the client reads this one. */
  let ahead: Promise<FilePart> | null = null
  const partAt = (at: number) => {
    const part = files.call<FilePart>(
      { op: 'read', path, offset: at, length: Math.min(partBytes, end - at + 1) },
      options.signal,
    )
    part.catch(() => {})
    return part
  }
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (offset > end || length === 0) {
        controller.close()
        return
      }
      const part = await (ahead ?? partAt(offset))
      ahead = null
      // Changed while it was sent: the client gets a cut-off answer, never a mix of two versions.
      if (part.entry.etag !== entry.etag) throw new Error(`${path} changed while it was being sent`)
      const bytes = Buffer.from(part.data, 'base64')
      if (bytes.byteLength === 0) throw new Error(`${path} ended early`)
      offset += bytes.byteLength
      if (offset <= end) ahead = partAt(offset)
      controller.enqueue(new Uint8Array(bytes))
    },
  })
  return new Reply(range ? 206 : 200, body, headers)
}
