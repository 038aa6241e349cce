// What the panel and the node's `cron` service say to each other: runs started, read and forgotten, and WordPress's
// own WP-Cron turned off or on in `wp-config.php`. Both sides read this one definition.

/** The node service's name. */
export const cronServiceName = 'cron'

/** The longest command line a cron job runs. */
export const commandMaxLength = 4096
/** The longest a run may last: 24 hours. */
export const timeoutMaxSeconds = 86_400
/** How much of a run's output (stdout and stderr as they came) is kept: its last 8 KiB. */
export const outputTailBytes = 8192

/** A run's id: the panel's `crun_…`. */
export const runIdPattern = /^crun_[0-9A-Za-z]{1,40}$/

/** What a run runs: a command line (`/bin/sh -c` in the site's home) or WordPress's `wp-cron.php` (in `htdocs/`). */
export type CronTask = { readonly kind: 'command'; readonly command: string } | { readonly kind: 'wp-cron' }

/** `run.start`: starts the run at once and answers; its outcome is read with `run.read`. */
export interface RunStart {
  readonly op: 'run.start'
  readonly runId: string
  readonly task: CronTask
  readonly timeoutSeconds: number
}

/** A run as the node tells it. */
export type RunState =
  | { readonly state: 'running'; readonly startedAt: string }
  | {
      readonly state: 'finished'
      readonly startedAt: string
      readonly finishedAt: string
      readonly durationMs: number
      /** The shell's exit code; null when it was killed (its timeout, or the site going). */
      readonly exitCode: number | null
      readonly timedOut: boolean
      /** The last {@link outputTailBytes} of stdout and stderr, interleaved as they came. */
      readonly output: string
      /** Whether more came than `output` holds. */
      readonly outputTruncated: boolean
    }

/** What the panel sends the `cron` service. */
export type CronRequest =
  | RunStart
  | { readonly op: 'run.read'; readonly runId: string }
  | { readonly op: 'run.forget'; readonly runId: string }
  | { readonly op: 'wp-cron.set'; readonly disabled: boolean }

/** Why a command line cannot run, or null: bounded, no NUL, no line breaks (a cron job is one line). */
export function commandProblem(command: string): string | null {
  if (command.trim().length === 0) return 'The command is empty.'
  if (command.length > commandMaxLength) return `The command is longer than ${commandMaxLength} characters.`
  // biome-ignore lint/suspicious/noControlCharactersInRegex: exactly the control characters refused
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(command))
    return 'The command holds a NUL, a line break or another control character: a cron job is one line.'
  return null
}
