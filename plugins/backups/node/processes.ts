// The programs a run drives (restic, the dump clients, gzip), each in a process group of its own so that a cancel
// kills it with whatever it started (restic's ssh), and every one of a run's groups killed together.

/** The environment of the plain tools a run drives as root (chown, find, rm, gzip): nothing of the node's. */
export const systemEnv: Readonly<Record<string, string>> = {
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  LANG: 'C.UTF-8',
}

/** What a finished program said: its exit code (null when a signal ended it) and the last of its stderr. */
export interface Finished {
  readonly code: number | null
  readonly stderr: string
}

/** How much of a program's stderr is kept (its last bytes: restic and the clients say why at the end). */
const stderrKeptBytes = 16_384

/** The process groups of one run: what a cancel kills. */
export class ProcessGroups {
  private readonly live = new Set<number>()
  private cancelled = false

  /** Whether {@link killAll} was called. */
  get killed(): boolean {
    return this.cancelled
  }

  /** Kills every group still running, and every one started after (the run is over). */
  killAll(): void {
    this.cancelled = true
    for (const pid of this.live) killGroup(pid)
  }

  /**
   * Starts `argv` in a session of its own with `env` (nothing of the node's own environment), its stdout as asked;
   * stderr is kept (its last 16 KiB) for `finished`.
   */
  spawn<Out extends 'pipe' | 'ignore' | Bun.BunFile>(
    argv: readonly string[],
    options: {
      env: Readonly<Record<string, string>>
      stdin?: ReadableStream<Uint8Array> | 'ignore' | Blob
      stdout: Out
      cwd?: string
    },
  ): {
    readonly child: Bun.Subprocess<'ignore', Out extends 'pipe' ? 'pipe' : 'ignore', 'pipe'>
    finished: Promise<Finished>
  } {
    if (this.cancelled) throw new Error('The run was cancelled.')
    const child = Bun.spawn([...argv], {
      env: { ...options.env },
      cwd: options.cwd ?? '/',
      stdin: options.stdin ?? 'ignore',
      stdout: options.stdout,
      stderr: 'pipe',
      detached: true,
    }) as unknown as Bun.Subprocess<'ignore', Out extends 'pipe' ? 'pipe' : 'ignore', 'pipe'>
    this.live.add(child.pid)
    const finished = (async () => {
      const stderr = await tail(child.stderr as ReadableStream<Uint8Array>, stderrKeptBytes)
      await child.exited
      this.live.delete(child.pid)
      // What it started may outlive it (an ssh restic left behind): the group goes with it.
      killGroup(child.pid)
      return { code: child.signalCode ? null : child.exitCode, stderr }
    })()
    return { child, finished }
  }

  /** Runs `argv` to its end, answering its stdout (at most `maxBytes`, the rest read and dropped). */
  async output(
    argv: readonly string[],
    env: Readonly<Record<string, string>>,
    maxBytes = 4 * 1024 * 1024,
  ): Promise<Finished & { stdout: string }> {
    const { child, finished } = this.spawn(argv, { env, stdout: 'pipe' })
    const stdout = await head(child.stdout as ReadableStream<Uint8Array>, maxBytes)
    return { ...(await finished), stdout }
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // Gone already.
  }
}

/** The last `max` bytes of a stream, as text. */
async function tail(stream: ReadableStream<Uint8Array>, max: number): Promise<string> {
  let kept = Buffer.alloc(0)
  for await (const chunk of stream) {
    kept = Buffer.concat([kept, chunk])
    if (kept.length > max * 2) kept = kept.subarray(kept.length - max)
  }
  return kept.subarray(Math.max(0, kept.length - max)).toString('utf8')
}

/** The first `max` bytes of a stream, as text (the rest read, so the writer never blocks). */
async function head(stream: ReadableStream<Uint8Array>, max: number): Promise<string> {
  const parts: Uint8Array[] = []
  let size = 0
  for await (const chunk of stream) {
    if (size < max) parts.push(chunk.subarray(0, max - size))
    size += chunk.length
  }
  return Buffer.concat(parts).toString('utf8')
}

/** Calls `line` with each line of a stream as it comes. */
export async function eachLine(
  stream: ReadableStream<Uint8Array>,
  line: (text: string) => void,
): Promise<void> {
  const decoder = new TextDecoder()
  let partial = ''
  for await (const chunk of stream) {
    const parts = (partial + decoder.decode(chunk, { stream: true })).split('\n')
    partial = parts.pop() ?? ''
    // A line that never ends is dropped rather than held without bound.
    if (partial.length > 1_048_576) partial = ''
    for (const part of parts) line(part)
  }
  const rest = partial + decoder.decode()
  if (rest) line(rest)
}
