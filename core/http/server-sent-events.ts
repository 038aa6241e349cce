// The frame of a Server-Sent Events answer, shared by every live stream (a job's events, a followed log): the
// `retry:` hint first, events and `id:` lines as the producer sends them, a comment when the stream was quiet too
// long (idle proxies close silent connections), pauses cut short when the client leaves, and the stream closed when
// the producer is done.

const encoder = new TextEncoder()

/** One event in the text/event-stream format: the id to resume from when given, its name, and JSON data on one line. */
export function serverSentEvent(event: string, data: unknown, id?: string | number): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
}

/** How a stream frames itself. */
export interface EventStreamFrame {
  /** How long a reconnecting client waits (`retry:`), sent first. */
  readonly retryMs: number
  /** After this long without anything sent, `keepAlive()` sends a comment. */
  readonly keepAliveMs: number
  /** The comment's text (`: <text>`). */
  readonly keepAliveComment: string
}

/** What a producer writes to. */
export interface EventStreamWriter {
  /** Aborts when the client leaves (the request's signal aborts, or the stream is cancelled). */
  readonly stopped: AbortSignal
  /** Sends `text` as it is: events from `serverSentEvent`, or bare `id:` lines. Restarts the keep-alive clock. */
  send(text: string): void
  /** Sends the keep-alive comment if nothing was sent for `keepAliveMs`. */
  keepAlive(): void
  /** Waits `ms`, less when the client leaves. */
  pause(ms: number): Promise<void>
}

/**
 * A `text/event-stream` body: `retry:`, then whatever `produce` sends until it returns (the stream closes) or
 * throws (the stream errors, unless the client already left). `signal` is the request's: the client leaving.
 */
export function serverSentEventStream(
  signal: AbortSignal,
  frame: EventStreamFrame,
  produce: (writer: EventStreamWriter) => Promise<void>,
): ReadableStream<Uint8Array> {
  const stopped = new AbortController()
  const stop = () => stopped.abort()
  signal.addEventListener('abort', stop, { once: true })
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      if (stopped.signal.aborted) return resolve()
      const done = () => {
        clearTimeout(timer)
        stopped.signal.removeEventListener('abort', done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      stopped.signal.addEventListener('abort', done, { once: true })
    })
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const write = (text: string) => controller.enqueue(encoder.encode(text))
      let lastSent = Date.now()
      const writer: EventStreamWriter = {
        stopped: stopped.signal,
        send(text) {
          write(text)
          lastSent = Date.now()
        },
        keepAlive() {
          if (Date.now() - lastSent < frame.keepAliveMs) return
          write(`: ${frame.keepAliveComment}\n\n`)
          lastSent = Date.now()
        },
        pause,
      }
      try {
        write(`retry: ${frame.retryMs}\n\n`)
        await produce(writer)
      } catch (error) {
        // The client went away while an event was being queued: nobody to tell.
        if (!stopped.signal.aborted) controller.error(error)
        return
      } finally {
        signal.removeEventListener('abort', stop)
      }
      controller.close()
    },
    cancel: stop,
  })
}
