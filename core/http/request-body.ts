// Reads a JSON request body within the installation's size limit, with the right problem for each way it fails.

import type { TObject } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'
import { closeObjects } from './schema-strictness.ts'

/** The media type of a Content-Type, without parameters, lower-case. */
const mediaTypeOf = (contentType: string) => contentType.split(';')[0]?.trim().toLowerCase() ?? ''

/** Whether a Content-Type names JSON (`application/json`, optionally with parameters, or `+json`). */
function isJson(contentType: string | null): boolean {
  if (!contentType) return false
  const mediaType = mediaTypeOf(contentType)
  return mediaType === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType)
}

/**
 * Refuses (415) a body of raw bytes sent as another media type than the operation takes (a form, JSON): bytes
 * meant as something else are never stored as the file. A body without a Content-Type is taken as what the
 * operation takes, as RFC 9110 §8.3 lets a recipient assume `application/octet-stream`.
 */
export function requireMediaType(request: Request, mediaType: string): void {
  const sent = request.headers.get('content-type')
  if (sent === null || mediaTypeOf(sent) === mediaType.toLowerCase()) return
  throw new Problem(kernelProblems.unsupported_media_type, {
    detail: `This operation takes its body as ${mediaType}, not ${mediaTypeOf(sent) || 'an empty media type'}.`,
    extensions: { accepted: mediaType },
  })
}

function tooLarge(limitBytes: number): Problem {
  return new Problem(kernelProblems.body_too_large, { extensions: { limitBytes } })
}

/** Reads the body as bytes, refusing as soon as it passes the limit (chunked bodies have no Content-Length). */
async function readLimited(request: Request, limitBytes: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN)
  if (declared > limitBytes) throw tooLarge(limitBytes)
  if (!request.body) return new Uint8Array()
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of request.body) {
    size += chunk.byteLength
    if (size > limitBytes) throw tooLarge(limitBytes)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}

/**
 * The parsed JSON body, or `undefined` when the request has none. Throws 413 past `limitBytes`, 415 for a
 * body that is not JSON, 400 for JSON that does not parse.
 */
export async function readJsonBody(request: Request, limitBytes: number): Promise<unknown> {
  const bytes = await readLimited(request, limitBytes)
  if (bytes.byteLength === 0) return undefined
  if (!isJson(request.headers.get('content-type')))
    throw new Problem(kernelProblems.unsupported_media_type, { extensions: { accepted: 'application/json' } })
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
  } catch {
    throw new Problem(kernelProblems.malformed_json)
  }
}

/**
 * Whether an operation whose body is `schema` may be sent without one: every field is optional, so no body means
 * `{}` (an action such as rotating a password, whose only field chooses the new one). Its document says the body
 * is optional.
 */
export function acceptsEmptyBody(schema: TObject): boolean {
  return Value.Check(closeObjects(schema), {})
}
