// The last stage: what a handler returned, as the answer the client gets: a Reply's status, headers and Location,
// else 200 with the body, tagged on a single-resource read (304 when the client's copy is current). Answers are
// data first (kept for Idempotency-Key replays), a Response last.

import type { KeptAnswer } from '../idempotency/idempotency-keys.ts'
import { Reply } from '../plugin/route.ts'
import { type Problem, problemMediaType } from '../problem/problem.ts'
import { clientHasCurrent, entityTagOf } from './conditional-requests.ts'
import type { RequestInfo, RouteUnderway } from './route-runtime.ts'
import { markSocketUpgrade, type SocketHandler } from './socket-upgrade.ts'

/** Answers that open a WebSocket (`Reply.upgrade`), with the handler the host hands the connection. */
const socketAnswers = new WeakMap<KeptAnswer, SocketHandler>()

/** An answer as data (kept for Idempotency-Key replays), before it becomes a Response. */
function bodyAnswer(status: number, body: unknown, headers: Record<string, string>): KeptAnswer {
  if (body === undefined) return { status, headers, body: null }
  // A stream (Reply.stream) carries its own content type.
  if (body instanceof ReadableStream) return { status, headers, body }
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }
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
  const response = new Response(answer.body, {
    status: answer.status,
    headers: extra ? { ...answer.headers, ...extra } : answer.headers,
  })
  const socket = socketAnswers.get(answer)
  return socket ? markSocketUpgrade(response, socket) : response
}

/** The representation a read answers, as `If-Match` on a change of the same path compares it. */
export function representationOf(result: unknown): string {
  return JSON.stringify(result instanceof Reply ? result.body : result)
}

/** Renders the answers of one route. */
export function answerRenderer({ route, runtime }: RouteUnderway) {
  const tagged = route.method === 'GET' && !route.list && !route.ownPreconditions
  /** The answer as data: a Reply's status, headers and `Location`, else 200 (with its ETag on a tagged read). */
  return (result: unknown, request: Request, info: RequestInfo): KeptAnswer => {
    const headers: Record<string, string> = { 'x-request-id': info.requestId }
    if (route.showsSecret) headers['cache-control'] = 'no-store'
    if (result instanceof Reply) {
      const location: Record<string, string> = result.location
        ? { location: `${runtime.basePath}${result.location}` }
        : {}
      const answer = bodyAnswer(result.status, result.body, { ...headers, ...result.headers, ...location })
      const socket = Reply.socketOf(result)
      if (socket) socketAnswers.set(answer, socket)
      return answer
    }
    const answer = bodyAnswer(200, result, headers)
    if (!tagged || answer.body === null || typeof answer.body !== 'string') return answer
    const etag = entityTagOf(answer.body)
    if (clientHasCurrent(request.headers.get('if-none-match'), etag))
      return { status: 304, headers: { 'x-request-id': info.requestId, etag }, body: null }
    return { ...answer, headers: { ...answer.headers, etag } }
  }
}
