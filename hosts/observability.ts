// The standard host's logs: pino writing JSON lines to stdout, one line per request (from the panel's `observe`),
// and the kernel's and plugins' own lines (failed job runs, webhook deliveries, unexpected errors) through the same
// logger. docs/operators.md describes the format; docs/performance.md what a line costs.

import pino from 'pino'
import type { Logger, LogLevel, RequestRecord } from '../core/host.ts'

/** How much the logger keeps while stdout is not read (a stalled pipe): past it, lines are dropped, not waited on. */
export const logBacklogBytes = 16 * 1024 * 1024

/** The host's logger: pino, as the panel's `logger`, with `end` for shutdown. */
export type HostLogger = Logger & {
  /**
   * Writes every line logged so far, the one being written asynchronously included, then closes the stream:
   * what must be done before a `process.exit`, which would not wait for them. Nothing is logged after it.
   */
  end(): Promise<void>
}

/** Options of {@link createHostLogger}. */
export interface HostLoggerOptions {
  /** Lines below this level are dropped (`LOG_LEVEL`). Default `info`. */
  readonly level?: LogLevel
  /** Where lines go; default stdout, written asynchronously so a slow reader never holds a request. */
  readonly destination?: pino.DestinationStream
}

/**
 * A pino logger writing one JSON object a line: `level` by name, `time` in ISO 8601 UTC, the fields, then `msg`.
 * By default to stdout, asynchronously and in batches under load; a reader that stops reading costs at most
 * {@link logBacklogBytes} of memory, then lines are dropped rather than the panel blocked.
 */
export function createHostLogger(options: HostLoggerOptions = {}): HostLogger {
  const destination =
    options.destination ?? pino.destination({ dest: 1, sync: false, maxLength: logBacklogBytes })
  const logger = pino(
    {
      level: options.level ?? 'info',
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  )
  return Object.assign(logger, {
    end() {
      const stream = destination as pino.DestinationStream & {
        end?: () => void
        once?: (event: string, listener: () => void) => void
      }
      if (!stream.end || !stream.once) return Promise.resolve()
      const { end, once } = stream
      return new Promise<void>((resolve) => {
        // sonic-boom closes only once its write in flight is done; a flushSync would not wait for that one.
        once.call(stream, 'close', resolve)
        once.call(stream, 'error', resolve)
        end.call(stream)
      })
    },
  })
}

/**
 * The request log: one `info` line per finished request with its id, method, route template (never the path as
 * sent, nor the query string, which may carry what a client should not have put there), status, duration in
 * milliseconds, caller (user and token ids), the customer it was limited to, and the client's address.
 */
export function requestLogObserver(log: Logger): (record: RequestRecord) => void {
  return (record) =>
    log.info(
      {
        requestId: record.requestId,
        method: record.method,
        route: record.route,
        status: record.status,
        durationMs: Math.round(record.durationMs * 100) / 100,
        userId: record.userId,
        tokenId: record.tokenId,
        customerId: record.customerId,
        address: record.address,
      },
      'request',
    )
}
