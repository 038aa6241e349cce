// A request body sent to a site's node in parts of 4 MiB, never held whole: the bytes a part carries go when it is
// full, and what arrived before a connection broke is still sent, so a resumable upload goes on from there.

import { Problem } from '../../core/index.ts'
import { filesProblems as problems } from './problems.ts'
import { partBytes } from './protocol.ts'
import type { SiteFiles } from './site-files.ts'

/** Parts on their way to the node at once. */
const partsInFlight = 3

/** Options of {@link sendParts}. */
export interface PartsOptions {
  /** The byte of the upload the body starts at. Default 0. */
  readonly start?: number
  /** The most bytes the upload may reach (its size, or the upload limit): more is refused. */
  readonly limit: number
  /** Told after each part the node took, with the bytes it has from the start. */
  readonly sent?: (received: number) => Promise<void>
  readonly signal: AbortSignal
}

/** What sending a body came to: the bytes the node has from the start, and why it stopped early (if it did). */
export interface PartsOutcome {
  readonly received: number
  /** The body broke off (the client went away) or was refused (too large): its bytes until then were sent. */
  readonly broken: unknown
}

/** Sends `body` to the upload `upload` (to `path`) of `files`, part by part. Throws when the node refuses a part. */
export async function sendParts(
  files: SiteFiles,
  upload: { readonly id: string; readonly path: string },
  body: ReadableStream<Uint8Array> | null,
  options: PartsOptions,
): Promise<PartsOutcome> {
  /** Bytes the node has, from the start, with nothing missing before them. */
  let received = options.start ?? 0
  /** Where the next part starts. */
  let next = received
  let pending: Uint8Array[] = []
  let pendingBytes = 0
  /** Parts on their way, oldest first: a few at once, so the node writes one while the next is read and sent. */
  const inFlight: { readonly done: Promise<unknown>; readonly end: number }[] = []

  /** Waits for the oldest part on its way, then counts it. */
  const settleOldest = async () => {
    const oldest = inFlight.shift()
    if (!oldest) return
    await oldest.done
    received = oldest.end
    await options.sent?.(received)
  }
  const send = async () => {
    if (pendingBytes === 0 && next > 0) return
    const part = Buffer.concat(pending, pendingBytes)
    pending = []
    pendingBytes = 0
    const offset = next
    next += part.byteLength
    const done = files.call(
      { op: 'upload-part', upload: upload.id, path: upload.path, offset, data: part.toString('base64') },
      options.signal,
    )
    // Rejections are taken where the part is waited for; none goes unhandled meanwhile.
    done.catch(() => {})
    inFlight.push({ done, end: next })
    // The first part starts the file afresh: it is written before any other.
    if (offset === 0 || inFlight.length >= partsInFlight) await settleOldest()
  }
  let broken: unknown = null
  try {
    try {
      for await (const chunk of body ?? []) {
        if (next + pendingBytes + chunk.byteLength > options.limit) {
          broken = new Problem(problems.upload_too_large, { extensions: { limitBytes: options.limit } })
          break
        }
        let rest = chunk
        while (pendingBytes + rest.byteLength >= partBytes) {
          const take = partBytes - pendingBytes
          pending.push(rest.subarray(0, take))
          pendingBytes += take
          rest = rest.subarray(take)
          await send()
        }
        if (rest.byteLength > 0) {
          pending.push(rest)
          pendingBytes += rest.byteLength
        }
      }
    } catch (error) {
      // The node refused a part: nothing more goes.
      if (error instanceof Problem) throw error
      broken = error
    }
    await send()
    while (inFlight.length > 0) await settleOldest()
  } catch (error) {
    // A part refused: the others on their way end first, and what arrived whole is what counts.
    await Promise.allSettled(inFlight.map((part) => part.done))
    throw error
  }
  return { received, broken }
}
