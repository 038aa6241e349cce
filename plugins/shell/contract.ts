// The shell plugin's public contract: what `POST /sites/{id}/exec` takes and its job answers, shell sessions as the
// API shows them, and the node service (`shell`) the panel reaches a site's node with.

import { type Static, t } from '../../core/index.ts'

/** The node service's name, in `nodes.services` and the agent's list. */
export const shellServiceName = 'shell'

/** Limits of `argv`: items, characters per item, characters in all. */
export const argvLimits = { items: 256, itemChars: 32_768, totalChars: 131_072 } as const

/** Command timeouts, in seconds: the default and the most a caller may ask for. */
export const execTimeouts = { defaultSeconds: 60, maxSeconds: 3600 } as const

/** Output kept in an exec job's result, per stream (stdout, stderr): 1 MiB each. */
export const execOutputCapBytes = 1024 * 1024

/** The body of `POST /sites/{id}/exec`. */
export const ExecRequest = t.Object(
  {
    argv: t.Array(t.String({ maxLength: argvLimits.itemChars }), {
      minItems: 1,
      maxItems: argvLimits.items,
      description:
        'The program and its arguments, run as they are (never through a shell): `["wp", "plugin", "list"]`. Use `["bash", "-c", "…"]` for a pipeline. No NUL characters; at most 256 items and 128 Ki characters in all.',
    }),
    cwd: t.Optional(
      t.String({
        maxLength: 4096,
        description:
          'The working directory as the site sees it: `/htdocs` (default), `/tmp`, `/logs` or a directory below them. `..` climbing out is refused.',
      }),
    ),
    timeoutSeconds: t.Optional(
      t.Integer({
        minimum: 1,
        maximum: execTimeouts.maxSeconds,
        description: 'The command is killed after this many seconds (default 60, at most 3600).',
      }),
    ),
  },
  { $id: 'ExecRequest' },
)
export type ExecRequest = Static<typeof ExecRequest>

/** The 202 answer of `POST /sites/{id}/exec`. */
export const ExecAccepted = t.Object(
  {
    jobId: t.String({
      description: 'The job running the command, `job_…`: follow it at `/jobs/{id}/events`.',
    }),
    siteId: t.String(),
    argv: t.Array(t.String()),
    cwd: t.String(),
    timeoutSeconds: t.Integer(),
  },
  { $id: 'ExecAccepted' },
)

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

/** States of a shell session. */
export const shellSessionStatuses = ['pending', 'open', 'ended', 'expired'] as const

/** A shell session as the API shows it. */
export const ShellSession = t.Object(
  {
    id: t.String({ description: 'Identifier, `shs_…`.' }),
    siteId: t.String(),
    customerId: t.String(),
    status: t.Union(
      shellSessionStatuses.map((status) => t.Literal(status)),
      {
        description:
          '`pending` until its WebSocket connects (within 60 s of creation, else `expired`), `open` while it runs, `ended` after.',
      },
    ),
    createdAt: t.String({ format: 'date-time' }),
    expiresAt: t.String({ format: 'date-time', description: 'The token’s end: connect before it.' }),
    startedAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
    endedAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
    durationSeconds: t.Union([t.Number(), t.Null()], { description: 'From connection to end.' }),
    endReason: t.Union([t.String(), t.Null()], {
      description:
        '`exited` (the shell ended), `closed` (the client left), `idle` (no input for the idle timeout), `site_unavailable` (the site was suspended or removed), `shutdown` (the panel stopped), `failed`.',
    }),
    exitCode: t.Union([t.Integer(), t.Null()], { description: 'The shell’s exit code when it exited.' }),
    recordingBytes: t.Integer({ description: 'Size of its asciicast recording (`…/recording`).' }),
  },
  { $id: 'ShellSession' },
)
export type ShellSession = Static<typeof ShellSession>

/** The 201 answer of `POST /sites/{id}/shell-sessions`: the session, and how to connect once. */
export const NewShellSession = t.Composite(
  [
    ShellSession,
    t.Object({
      url: t.String({
        description:
          'The WebSocket to open within 60 s, once (`wss://…/api/v1/sites/{id}/shell-sessions/{sessionId}/connect`); give `token` as its `token` query parameter.',
      }),
      token: t.String({ description: 'Single use, valid 60 s; shown only here.' }),
    }),
  ],
  { $id: 'NewShellSession' },
)

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
