// What the panel and the `shell` node service say to each other (JSON both ways) and the limits both sides hold
// commands to, read by both; nothing of the panel's kernel.

/** The node service's name. */
export const shellServiceName = 'shell'

/** Limits of `argv`: items, characters per item, characters in all. */
export const argvLimits = { items: 256, itemChars: 32_768, totalChars: 131_072 } as const

/** Command timeouts, in seconds: the default and the most a caller may ask for. */
export const execTimeouts = { defaultSeconds: 60, maxSeconds: 3600 } as const

/** Output kept in an exec job's result, per stream (stdout, stderr): 1 MiB each. */
export const execOutputCapBytes = 1024 * 1024

/** How a command ended: the finished `site.exec` job's `result`. */
export interface ExecOutcome {
  /** Its exit code; null when a signal ended it. */
  readonly exitCode: number | null
  /** The signal that ended it (`SIGKILL` after a timeout or a cancel), or null. */
  readonly signal: string | null
  readonly timedOut: boolean
  readonly durationMs: number
  /** Up to 1 MiB of each, as UTF-8 text. */
  readonly stdout: string
  readonly stderr: string
  /** Whether stdout or stderr was longer than what is kept. */
  readonly truncated: boolean
}

/** A line of a command's output. */
export interface OutputLine {
  readonly stream: 'stdout' | 'stderr'
  readonly line: string
}

/** Requests of the `shell` node service (JSON both ways). */
export type ShellServiceRequest =
  | {
      readonly op: 'exec.start'
      readonly argv: readonly string[]
      readonly cwd: string
      readonly timeoutMs: number
      readonly outputCapBytes: number
    }
  | { readonly op: 'exec.read'; readonly execId: string; readonly after: number; readonly waitMs: number }
  | { readonly op: 'exec.cancel'; readonly execId: string }
  | { readonly op: 'shell.open'; readonly cols: number; readonly rows: number }
  | {
      readonly op: 'shell.write'
      readonly shellId: string
      /** Base64 of the bytes typed. */
      readonly input?: string
      readonly resize?: { readonly cols: number; readonly rows: number }
    }
  | { readonly op: 'shell.read'; readonly shellId: string; readonly after: number; readonly waitMs: number }
  | { readonly op: 'shell.close'; readonly shellId: string }

/** Answers of `exec.read`. */
export interface ExecRead {
  readonly lines: readonly OutputLine[]
  readonly next: number
  readonly outcome: ExecOutcome | null
}

/** Answers of `shell.read`: base64 output, the byte count read so far, the exit once all is read. */
export interface ShellRead {
  readonly output: string
  readonly next: number
  readonly exit: { readonly code: number | null; readonly signal: string | null } | null
}
