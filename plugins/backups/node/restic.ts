// Running restic against one repository for a run: its commands in the run's process groups, what it complains of
// turned into the protocol's codes (a repository that is not there is told apart from one that cannot be reached or
// refuses its password), and its messages shown without a secret or a path of the node's.

import { existsSync } from 'node:fs'
import { eachLine, type Finished, type ProcessGroups } from './processes.ts'
import type { ResticAccess } from './restic-env.ts'
import { RunFailure, scrubbed } from './run-failure.ts'

/** restic's program. */
export const resticProgram = 'restic'

/** `nice` 10 and the lowest best-effort I/O class: backups yield to the sites they back up. */
const backgroundPriority = ['nice', '-n', '10', 'ionice', '-c', '2', '-n', '7'] as const

const patterns: readonly [RegExp, RunFailure['code'], string][] = [
  // restic 0.14 does not wait for a lock: another run on the same repository (a forget, a backup) holds it.
  [
    /repository is already locked/i,
    'repository_unreachable',
    'The repository is in use by another run; try again later.',
  ],
  [/wrong password|no key found/i, 'repository_unreachable', 'The repository refused its password.'],
  [
    /no matching ID found|invalid snapshot|no snapshot/i,
    'snapshot_missing',
    'The snapshot is not in the repository.',
  ],
  [/no space left on device|disk quota exceeded/i, 'disk_quota_exceeded', 'The disk is full.'],
  [
    /ciphertext verification failed|does not match|repository contains errors|invalid data returned|unexpected EOF while reading|error decrypting|decrypt|checksum|pack .* not found|blob .* not found|LoadRaw|truncated/i,
    'repository_corrupt',
    'The repository is damaged.',
  ],
  [
    /ssh|sftp|connection refused|connection reset|timeout|timed out|no such host|dial tcp|host key|permission denied|network is unreachable|server response unexpected|unable to open repository|401|403|500|502|503|AccessDenied|access denied|InvalidAccessKeyId|SignatureDoesNotMatch/i,
    'repository_unreachable',
    'The repository could not be reached.',
  ],
]

/** How long a run waits for another's lock on its repository before it gives up. */
const lockPatienceMs = 5 * 60_000

/** Whether restic's complaint says there is no repository at the location (rather than none reachable). */
const absent = (stderr: string) =>
  /Is there a repository at the following location|repository does not exist|unable to open config file.*(no such file|not exist|404)/is.test(
    stderr,
  )

/** restic for one repository and one run. */
export class Restic {
  constructor(
    private readonly access: ResticAccess,
    readonly groups: ProcessGroups,
    /** The node's own paths no message may show (its data directory, the staging folders). */
    private readonly nodePaths: readonly string[],
  ) {}

  get env(): Readonly<Record<string, string>> {
    return this.access.env
  }

  /**
   * The command line of `args`, its target options first, at a lower CPU and disk priority than the sites' own
   * processes: a node's nightly backups take what the sites leave (measured in `npm run bench:backups`).
   */
  argv(args: readonly string[]): string[] {
    return [...backgroundPriority, resticProgram, ...this.access.options, ...args]
  }

  /** The failure restic's exit says, with a short account of it. */
  failure(finished: Finished, doing: string): RunFailure {
    if (this.groups.killed) return new RunFailure('cancelled', 'The run was cancelled.')
    const detail = scrubbed(finished.stderr, this.access.secrets, this.nodePaths)
    for (const [pattern, code, summary] of patterns)
      if (pattern.test(finished.stderr)) return new RunFailure(code, `${summary} (${doing}: ${detail})`)
    return new RunFailure(
      'failed',
      `restic failed ${doing} (exit ${finished.code ?? 'by a signal'}): ${detail}`,
    )
  }

  /** Runs restic `args` to its end and answers its stdout; a failure throws what it says. */
  async run(args: readonly string[], doing: string, maxBytes?: number): Promise<string> {
    return this.waitingForLocks<string>(async () => {
      const result = await this.groups.output(this.argv(args), this.access.env, maxBytes)
      return result.code === 0 ? { ok: result.stdout } : { failed: result }
    }, doing)
  }

  /**
   * Runs `attempt` again while restic says another holds the repository's lock (the panel pruning a remote
   * repository; restic 0.14 does not wait itself), for up to five minutes; restic takes its lock before it does
   * anything, so nothing was done by the attempts refused.
   */
  private async waitingForLocks<T>(
    attempt: () => Promise<{ ok: T } | { failed: Finished }>,
    doing: string,
  ): Promise<T> {
    const began = Date.now()
    for (let tries = 0; ; tries++) {
      const result = await attempt()
      if ('ok' in result) return result.ok
      const locked = /repository is already locked/i.test(result.failed.stderr)
      if (!locked || this.groups.killed || Date.now() - began > lockPatienceMs)
        throw this.failure(result.failed, doing)
      await Bun.sleep(Math.min(10_000, 500 * 2 ** tries))
    }
  }

  /** Runs restic `args` with `--json`, calling `message` with each JSON line it prints. */
  async json(
    args: readonly string[],
    doing: string,
    message: (value: Record<string, unknown>) => void,
  ): Promise<void> {
    const { child, finished } = this.groups.spawn(this.argv(['--json', ...args]), {
      env: this.access.env,
      stdout: 'pipe',
    })
    await eachLine(child.stdout as ReadableStream<Uint8Array>, (line) => {
      if (!line.startsWith('{')) return
      try {
        message(JSON.parse(line) as Record<string, unknown>)
      } catch {
        // Not restic's JSON: a line of a file's name printed by a warning.
      }
    })
    const result = await finished
    // 3: some files could not be read; the snapshot was made without them. A site's own unreadable file is no
    // reason to fail its backup, but restic says which in stderr.
    if (result.code !== 0 && result.code !== 3) throw this.failure(result, doing)
  }

  /**
   * Opens the repository, making it when it is not there and `create` says so; a repository that is missing when it
   * must exist is `repository_unreachable` (nothing to restore from). Answers whether it made it.
   */
  async open(create: boolean): Promise<boolean> {
    if (this.access.localPath !== null && !existsSync(`${this.access.localPath}/config`)) {
      if (!create) throw new RunFailure('repository_unreachable', 'The repository does not exist.')
      await this.init()
      return true
    }
    const probe = await this.groups.output(this.argv(['cat', 'config']), this.access.env)
    if (probe.code === 0) {
      // Locks a killed run left (its process gone) would hold the repository: restic removes only stale ones.
      await this.groups.output(this.argv(['unlock']), this.access.env)
      return false
    }
    if (this.groups.killed) throw new RunFailure('cancelled', 'The run was cancelled.')
    // A password refused says "wrong password"; a target that cannot be reached says so before any config.
    if (absent(probe.stderr) && !/wrong password|no key found/i.test(probe.stderr)) {
      if (!create) throw new RunFailure('repository_unreachable', 'The repository does not exist.')
      await this.init()
      return true
    }
    const failure = this.failure(probe, 'opening the repository')
    throw failure.code === 'failed' ? new RunFailure('repository_unreachable', failure.message) : failure
  }

  /** Makes the repository: a target that will not have it made (a refused login, a read-only store) refused it. */
  private async init(): Promise<void> {
    try {
      await this.run(['init'], 'making the repository')
    } catch (error) {
      if (error instanceof RunFailure && error.code === 'failed')
        throw new RunFailure('repository_unreachable', error.message)
      throw error
    }
  }

  /** The bytes the whole repository takes (its packs, as restic counts them). */
  async repositoryBytes(): Promise<number> {
    const stats = JSON.parse(
      await this.run(['stats', '--json', '--mode', 'raw-data'], 'reading the repository’s size'),
    )
    return Number((stats as { total_size?: number }).total_size ?? 0)
  }
}

/** A snapshot as `restic snapshots --json` lists it. */
export interface Snapshot {
  readonly id: string
  readonly short_id: string
  readonly paths: readonly string[]
  readonly tags?: readonly string[]
}

/** The snapshot `id` (a full id or a prefix), or `snapshot_missing`. */
export async function snapshotOf(restic: Restic, id: string): Promise<Snapshot> {
  if (!/^[0-9a-f]{8,64}$/.test(id)) throw new RunFailure('snapshot_missing', 'That is not a snapshot id.')
  const listed = JSON.parse(
    await restic.run(['snapshots', '--json', id], 'reading the snapshot'),
  ) as Snapshot[]
  const snapshot = listed[0]
  if (!snapshot)
    throw new RunFailure('snapshot_missing', `The snapshot ${id.slice(0, 8)} is not in the repository.`)
  return snapshot
}

/** A path written as a restic include or exclude pattern that matches it alone (its wildcards escaped). */
export const literalPattern = (path: string) => path.replace(/[*?[\\]/g, (char) => `\\${char}`)
