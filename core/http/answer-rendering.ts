// The last stage: what a handler returned, as the answer the client gets: a Reply's status, headers and Location,
// else 200 with the body; JSON unless the answer or the route's declared response names another media type (then
// the text or bytes as they are); a read's 200 tagged (304 when the client's copy is current), whatever its type.
// Answers are data first (kept for Idempotency-Key replays), a Response last.

import type { KeptAnswer } from '../idempotency/idempotency-keys.ts'
import { Reply } from '../plugin/route.ts'
import { type Problem, problemMediaType } from '../problem/problem.ts'
import { clientHasCurrent, entityTagOf } from './conditional-requests.ts'
import { endingWhen, eventStreamType } from './event-stream-end.ts'
import type { RequestInfo, RouteUnderway } from './route-runtime.ts'
import { markSocketUpgrade, type SocketHandler } from './socket-upgrade.ts'

/** Answers that open a WebSocket (`Reply.upgrade`), with the handler the host hands the connection. */
const socketAnswers = new WeakMap<KeptAnswer, SocketHandler>()

/** Whether a media type is JSON's (`application/json`, `application/problem+json`, with or without parameters). */
function isJsonType(contentType: string): boolean {
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? ''
  return mediaType === 'application/json' || mediaType.endsWith('+json')
}

/** The media type a handler's answer names, in whatever case its header is spelt. */
function namedType(headers: Readonly<Record<string, string>>): string | undefined {
  for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() === 'content-type') return value
  return undefined
}

/**
 * An answer as data (kept for Idempotency-Key replays), before it becomes a Response: a body in another media type
 * than JSON (named by the answer's headers, else by the route's declared response) is sent as the text or bytes the
 * handler gave; anything else is JSON.
 */
function bodyAnswer(
  status: number,
  body: unknown,
  headers: Record<string, string>,
  declaredType: string | undefined,
  label: string,
): KeptAnswer {
  if (body === undefined) return { status, headers, body: null }
  // A stream (Reply.stream) carries its own content type.
  if (body instanceof ReadableStream) return { status, headers, body }
  const named = namedType(headers)
  const type = named ?? declaredType
  if (type === undefined || isJsonType(type))
    return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }
  if (typeof body !== 'string' && !(body instanceof Uint8Array))
    throw new Error(`${label} answers ${type} but its handler returned neither text nor bytes`)
  return { status, headers: named ? headers : { 'content-type': type, ...headers }, body }
}

/** A refusal as kept for replay: the very body and headers the client got. */
export function renderedProblem(problem: Problem, requestId: string): KeptAnswer {
  return {
    status: problem.status,
    headers: { 'content-type': problemMediaType, ...problem.headers },
    body: JSON.stringify(problem.toJSON(requestId)),
  }
}

/** A kept answer sent again, saying so. */
export function replayed(answer: KeptAnswer, info: RequestInfo): KeptAnswer {
  return {
    ...answer,
    headers: { ...answer.headers, 'x-request-id': info.requestId, 'idempotent-replayed': 'true' },
  }
}

/** The Response of an answer, with the rate limit headers of whoever the request was charged to. */
export function toResponse(
  answer: KeptAnswer,
  extra: Readonly<Record<string, string>> | undefined,
): Response {
  const response = new Response(answer.body as BodyInit | null, {
    status: answer.status,
    headers: extra ? { ...answer.headers, ...extra } : answer.headers,
  })
  const socket = socketAnswers.get(answer)
  return socket ? markSocketUpgrade(response, socket) : response
}

/** Renders the answers of one route. */
export function answerRenderer({ route, runtime, label }: RouteUnderway) {
  const tagged = route.method === 'GET' && !route.list && !route.ownPreconditions
  const declaredType = (status: number) => route.responses?.[status]?.contentType

  /** The answer as data, untagged: a Reply's status, headers and `Location`, else 200 with the body. */
  function untagged(result: unknown, headers: Record<string, string>): KeptAnswer {
    if (!(result instanceof Reply)) return bodyAnswer(200, result, headers, declaredType(200), label)
    const location: Record<string, string> = result.location
      ? { location: `${runtime.basePath}${result.location}` }
      : {}
    const all = { ...headers, ...result.headers, ...location }
    const { stopping } = runtime
    // An event stream never ends by itself: it ends when the panel stops.
    const body =
      stopping && result.body instanceof ReadableStream && result.headers['content-type'] === eventStreamType
        ? endingWhen(result.body, stopping)
        : result.body
    const answer = bodyAnswer(result.status, body, all, declaredType(result.status), label)
    const socket = Reply.socketOf(result)
    if (socket) socketAnswers.set(answer, socket)
    return answer
  }

  return {
    /** The answer as data, with its ETag on a read's 200 (304 when the client's copy is current). */
    render(result: unknown, request: Request, info: RequestInfo): KeptAnswer {
      const headers: Record<string, string> = { 'x-request-id': info.requestId }
      if (route.showsSecret) headers['cache-control'] = 'no-store'
      const answer = untagged(result, headers)
      if (!tagged || answer.status !== 200) return answer
      if (typeof answer.body !== 'string' && !(answer.body instanceof Uint8Array)) return answer
      const etag = entityTagOf(answer.body)
      if (clientHasCurrent(request.headers.get('if-none-match'), etag))
        return { status: 304, headers: { 'x-request-id': info.requestId, etag }, body: null }
      return { ...answer, headers: { ...answer.headers, etag } }
    },

    /** The representation a read answers, as `If-Match` on a change of the same path compares it. */
    representationOf(result: unknown): string | Uint8Array {
      const { body } = untagged(result, {})
      return typeof body === 'string' || body instanceof Uint8Array ? body : ''
    },
  }
}
