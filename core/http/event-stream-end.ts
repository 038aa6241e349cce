// Live event streams end when the panel stops: their clients reconnect (EventSource does), to another instance if
// there is one, instead of holding the stop for as long as a stream may stay open (an hour).

/** The media type of Server-Sent Events: the answers that never end by themselves. */
export const eventStreamType = 'text/event-stream'

/**
 * `body`, closed cleanly (its source cancelled) once `stopping` aborts: the client sees the stream end between two
 * events, never in the middle of one. Its listener on `stopping` goes when the stream ends, however it ends.
 */
export function endingWhen(
  body: ReadableStream<Uint8Array>,
  stopping: AbortSignal,
): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  let stop: () => void = () => {}
  const stopped = new Promise<'stopped'>((resolve) => {
    stop = () => resolve('stopped')
  })
  if (stopping.aborted) stop()
  else stopping.addEventListener('abort', stop, { once: true })
  const forget = () => stopping.removeEventListener('abort', stop)
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await Promise.race([reader.read(), stopped])
      if (next === 'stopped') {
        await reader.cancel(stopping.reason).catch(() => {})
        controller.close()
      } else if (next.done) {
        forget()
        controller.close()
      } else controller.enqueue(next.value)
    },
    cancel(reason) {
      forget()
      return reader.cancel(reason)
    },
  })
}
