// A real webhook receiver on loopback for tests: records every request it gets and answers as the test says.

import { freePort } from './free-port.ts'

/** One request the receiver got. */
export interface ReceivedWebhook {
  readonly method: string
  readonly path: string
  /** Header names lower-case. */
  readonly headers: Readonly<Record<string, string>>
  /** The raw body, exactly as sent (signatures are over these bytes). */
  readonly body: string
  /** The body parsed: `{ id, type, timestamp, data }` for a Plinth delivery. */
  readonly json: {
    readonly id: string
    readonly type: string
    readonly timestamp: string
    readonly data: Record<string, unknown>
  }
  /** `performance.now()` when it arrived. */
  readonly receivedAt: number
}

/** How the receiver answers: a status for every request, or a function of the request (and its number, 1-based). */
export type ReceiverAnswer =
  | number
  | ((request: ReceivedWebhook, count: number) => Response | Promise<Response>)

/** A running receiver. */
export interface WebhookReceiver {
  /** Its URL, `http://127.0.0.1:<port>/hooks`. */
  readonly url: string
  readonly port: number
  /** Everything received so far, in order. */
  readonly received: readonly ReceivedWebhook[]
  /** Changes how it answers from now on. Default 204. */
  answer(with_: ReceiverAnswer): void
  /** Resolves with the first request (already received or still to come) matching `predicate`; rejects after `timeoutMs`. */
  waitFor(predicate: (request: ReceivedWebhook) => boolean, timeoutMs?: number): Promise<ReceivedWebhook>
  stop(): void
}

/** Starts a receiver on 127.0.0.1 on a port no receiver of this process had before. */
export function startWebhookReceiver(path = '/hooks'): WebhookReceiver {
  const received: ReceivedWebhook[] = []
  const waiters = new Set<() => void>()
  let answer: ReceiverAnswer = 204
  // Never a port an earlier receiver of this process had: a finished test's panel may still retry its deliveries
  // there, and a new receiver on a reused ephemeral port got them (a stray delivery failed a brand's test).
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: freePort(),
    async fetch(request) {
      const body = await request.text()
      let json: ReceivedWebhook['json']
      try {
        json = JSON.parse(body) as ReceivedWebhook['json']
      } catch {
        json = { id: '', type: '', timestamp: '', data: {} }
      }
      const item: ReceivedWebhook = {
        method: request.method,
        path: new URL(request.url).pathname,
        headers: Object.fromEntries(request.headers),
        body,
        json,
        receivedAt: performance.now(),
      }
      received.push(item)
      for (const wake of waiters) wake()
      return typeof answer === 'number'
        ? new Response(null, { status: answer })
        : answer(item, received.length)
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}${path}`,
    port: server.port ?? 0,
    received,
    answer(with_) {
      answer = with_
    },
    waitFor(predicate, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = received.find(predicate)
          if (!found) return false
          waiters.delete(check)
          clearTimeout(timer)
          resolve(found)
          return true
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(
            new Error(
              `No matching webhook within ${timeoutMs} ms; got: ${received.map((r) => r.json.type).join(', ')}`,
            ),
          )
        }, timeoutMs)
        if (!check()) waiters.add(check)
      })
    },
    stop() {
      server.stop(true)
    },
  }
}
