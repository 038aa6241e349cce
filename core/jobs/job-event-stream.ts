// A job's live view as Server-Sent Events (`GET /jobs/{id}/events`): its state at once, then every change of
// status, progress, step or attempt and every output line it reports, then the finished job, and the stream ends.
// It reads the job's rows itself, so it follows a job run by any instance sharing the store.

import { serverSentEvent, serverSentEventStream } from '../http/server-sent-events.ts'
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
  const read = () =>
    db.withTables<JobTables>().selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst()
  // Reconnecting clients wait this long, not the browser's default.
  const frame = {
    retryMs: Math.max(1000, pollMs * 4),
    keepAliveMs: options.keepAliveMs ?? 15_000,
    keepAliveComment: 'still running',
  }
  return serverSentEventStream(signal, frame, async (stream) => {
    const deadline = Date.now() + (options.maxMs ?? 3_600_000)
    let eventId = 0
    let lastLine = 0
    let seen = ''
    while (!stream.stopped.aborted && Date.now() < deadline) {
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
          const event: JobOutputEvent = {
            seq: line.seq,
            stream: line.stream,
            line: line.line,
            at: line.at,
          }
          stream.send(serverSentEvent('output', event, ++eventId))
        }
        if (lines.length < 500) break
      }
      const key = JSON.stringify([now.status, now.progress, now.step, now.attempts])
      if (key !== seen) {
        seen = key
        stream.send(serverSentEvent('progress', now, ++eventId))
      }
      if (finished.has(row.status)) {
        stream.send(serverSentEvent('end', job, ++eventId))
        break
      }
      stream.keepAlive()
      await stream.pause(pollMs)
    }
  })
}
