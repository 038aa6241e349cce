// A job's live view as Server-Sent Events (`GET /jobs/{id}/events`): its state at once, then every change of
// status, progress, step or attempt and every output line it reports, then the finished job, and the stream ends.
// It reads the job's rows itself, so it follows a job run by any instance sharing the store.

import type { Db } from '../store/store.ts'
import { readJobOutput } from './job-output.ts'
import type { Job } from './job-schema.ts'
import type { JobsTable, JobTables } from './job-tables.ts'

/** How the stream watches its job. */
export interface JobStreamOptions {
  /** How often the job row is read. Default 250 ms. */
  readonly pollMs?: number
  /** How often a comment keeps idle proxies from closing the connection. Default 15 s. */
  readonly keepAliveMs?: number
  /** The longest a stream stays open; the client reconnects after (EventSource does). Default one hour. */
  readonly maxMs?: number
}

/** What a `progress` event carries. */
export interface JobProgressEvent {
  readonly status: Job['status']
  readonly progress: number
  readonly step: string | null
  readonly attempts: number
  readonly updatedAt: string
}

/** What an `output` event carries: a line the job reported (`run.output`), numbered from 1. */
export interface JobOutputEvent {
  readonly seq: number
  /** `stdout`, `stderr`, or `notice` (the job's output reached its limit; later lines are not kept). */
  readonly stream: string
  readonly line: string
  readonly at: string
}

const finished = new Set(['succeeded', 'failed', 'cancelled'])

/** One event in the text/event-stream format: an id, a name, and JSON data on one line. */
export function serverSentEvent(id: number, event: string, data: unknown): string {
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`
}

/**
 * The stream of job `id`: `progress` events (`JobProgressEvent`) whenever the job changes, the first at once,
 * `output` events (`JobOutputEvent`) for the lines it reports (all of them, from the first, on every connection), then `end` with the job as `GET /jobs/{id}` shows it. Ends when the job finishes, when `signal` aborts (the client
 * left), or after `maxMs`.
 */
export function jobEventStream(
  db: Db,
  id: string,
  render: (row: JobsTable) => Job,
  signal: AbortSignal,
  options: JobStreamOptions = {},
): ReadableStream<Uint8Array> {
  const pollMs = options.pollMs ?? 250
  const keepAliveMs = options.keepAliveMs ?? 15_000
  const maxMs = options.maxMs ?? 3_600_000
  const encoder = new TextEncoder()
  const stopped = new AbortController()
  const stop = () => stopped.abort()
  signal.addEventListener('abort', stop, { once: true })
  const read = () =>
    db.withTables<JobTables>().selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst()
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      stopped.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer)
          resolve()
        },
        { once: true },
      )
    })

  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (text: string) => controller.enqueue(encoder.encode(text))
      const deadline = Date.now() + maxMs
      let eventId = 0
      let lastLine = 0
      let seen = ''
      let quietSince = Date.now()
      try {
        // Reconnecting clients wait this long, not the browser's default.
        send(`retry: ${Math.max(1000, pollMs * 4)}\n\n`)
        while (!stopped.signal.aborted && Date.now() < deadline) {
          const row = await read()
          if (!row) break
          const job = render(row)
          const now: JobProgressEvent = {
            status: job.status,
            progress: job.progress,
            step: job.step,
            attempts: job.attempts,
            updatedAt: job.updatedAt,
          }
          // Output first: a finished job's last lines are all read before its `end`.
          for (;;) {
            const lines = await readJobOutput(db, id, lastLine)
            for (const line of lines) {
              lastLine = line.seq
              quietSince = Date.now()
              const event: JobOutputEvent = {
                seq: line.seq,
                stream: line.stream,
                line: line.line,
                at: line.at,
              }
              send(serverSentEvent(++eventId, 'output', event))
            }
            if (lines.length < 500) break
          }
          const key = JSON.stringify([now.status, now.progress, now.step, now.attempts])
          if (key !== seen) {
            seen = key
            quietSince = Date.now()
            send(serverSentEvent(++eventId, 'progress', now))
          }
          if (finished.has(row.status)) {
            send(serverSentEvent(++eventId, 'end', job))
            break
          }
          if (Date.now() - quietSince >= keepAliveMs) {
            quietSince = Date.now()
            send(': still running\n\n')
          }
          await pause(pollMs)
        }
      } catch (error) {
        controller.error(error)
        return
      } finally {
        signal.removeEventListener('abort', stop)
      }
      controller.close()
    },
    cancel: stop,
  })
}
