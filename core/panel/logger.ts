// The panel's default logger: JSON lines shaped as the standard host's (pino's) are, written with console.error, for
// an embedder who gives none. Hosts pass their own (`PanelOptions.logger`); the standard host passes pino.

import type { LogFields, Logger } from '../plugin/define-plugin.ts'

/** Levels, with pino's numbers. */
export const logLevels = { debug: 20, info: 30, warn: 40, error: 50 } as const

/** A level name. */
export type LogLevel = keyof typeof logLevels

/** An error as a log field: its class, message and stack (pino's `err` serializer writes the same three). */
export function errorFields(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error, message: String(error) }
  return { type: error.name, message: error.message, stack: error.stack }
}

/** Field values as JSON: errors with their stack, anything else as JSON.stringify sees it. */
function replacer(_key: string, value: unknown): unknown {
  return value instanceof Error ? errorFields(value) : typeof value === 'bigint' ? value.toString() : value
}

/** Options of {@link jsonLinesLogger}. */
export interface JsonLinesLoggerOptions {
  /** Lines below this level are dropped. Default `warn`. */
  readonly level?: LogLevel
  /** Writes one line (without its newline). Default `console.error`. */
  readonly write?: (line: string) => void
  /** Fields on every line. */
  readonly bindings?: LogFields
}

/**
 * A logger writing one JSON object a line: `level` (its name), `time` (ISO 8601 UTC), the bindings, the fields,
 * then `msg`, as the standard host's pino lines are.
 */
export function jsonLinesLogger(options: JsonLinesLoggerOptions = {}): Logger {
  const threshold = logLevels[options.level ?? 'warn']
  const write = options.write ?? ((line: string) => console.error(line))
  const bindings = options.bindings ?? {}
  const at =
    (level: LogLevel) =>
    (fields: LogFields, message: string): void => {
      if (logLevels[level] < threshold) return
      const line = { level, time: new Date().toISOString(), ...bindings, ...fields, msg: message }
      let text: string
      try {
        text = JSON.stringify(line, replacer)
      } catch {
        // A field that cannot be written (a cycle) must not lose the line.
        text = JSON.stringify({ level, time: line.time, ...bindings, msg: message, unloggableFields: true })
      }
      write(text)
    }
  return {
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    child: (more) => jsonLinesLogger({ ...options, bindings: { ...bindings, ...more } }),
  }
}
