// The shell plugin's public contract: what `POST /sites/{id}/exec` takes and its job answers, shell sessions as the
// API shows them, and the node service (`shell`) the panel reaches a site's node with.

import { enumOf, type Static, t } from '../../core/index.ts'
import { argvLimits, execTimeouts } from './node/protocol.ts'

export {
  argvLimits,
  type ExecOutcome,
  type ExecRead,
  execOutputCapBytes,
  execTimeouts,
  type OutputLine,
  type ShellRead,
  type ShellServiceRequest,
  shellServiceName,
} from './node/protocol.ts'

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

/** States of a shell session. */
export const shellSessionStatuses = ['pending', 'open', 'ended', 'expired'] as const

/** A shell session as the API shows it. */
export const ShellSession = t.Object(
  {
    id: t.String({ description: 'Identifier, `shs_…`.' }),
    siteId: t.String(),
    customerId: t.String(),
    status: enumOf(shellSessionStatuses, {
      description:
        '`pending` until its WebSocket connects (within 60 s of creation, else `expired`), `open` while it runs, `ended` after.',
    }),
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
