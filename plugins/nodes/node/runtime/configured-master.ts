// A master (nginx or PHP-FPM) and the configuration files it reads: every change is written, checked by the
// master's own test (`nginx -t`, `php-fpm -t`) and only then reloaded; a refused change is undone.

import { existsSync } from 'node:fs'
import { readFile, rm } from 'node:fs/promises'
import { NodeFailure } from '../contract.ts'
import { writeFileAtomic, writeFileIfAbsent } from './atomic-files.ts'
import { outputOf, run } from './commands.ts'
import { endLeftovers } from './leftovers.ts'
import { type MasterSpec, reloadMaster, runningMaster, startMaster, stopMaster } from './masters.ts'

/** A master with its configuration. Callers serialize changes (see `serialized`). */
export interface ConfiguredMaster {
  readonly spec: MasterSpec
  /** The pid of the running master, or null. */
  running(): number | null
  /** Checks the whole configuration; throws a {@link NodeFailure} quoting the master when it refuses it. */
  check(): Promise<void>
  /**
   * Starts the master unless it runs; a master found running gets pending changes. What a killed master left
   * (its workers, holding its ports) is ended first; answers the pids ended (none when it ran or left nothing).
   */
  start(): Promise<number[]>
  /** Stops the master, and what an earlier one left. */
  stop(): Promise<void>
  /**
   * Writes `content` to `path` (null removes it) and checks the configuration; when the master refuses it, puts
   * back what was there and throws. A change marks a reload pending (kept on disk, so a crash before the reload
   * leaves it pending for the next run).
   */
  put(path: string, content: string | null, signal: AbortSignal, mode?: number): Promise<void>
  /** Reloads the running master when a change is pending; a master not running reads it when it starts. */
  applyPending(): Promise<void>
}

/** Options of {@link configuredMaster}. */
export interface ConfiguredMasterOptions {
  readonly spec: MasterSpec
  /** The command testing the whole configuration. */
  readonly testArgv: readonly string[]
  /** The file marking a reload pending. */
  readonly pendingFile: string
  /** The problem code of a refused change: `nginx_config_refused`. */
  readonly refusedCode: string
  /** The mode of the files written (default 0600: root's; a site's master, its user, reads its own). */
  readonly fileMode?: number
}

async function readOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}

/** A master over its spec, checked with `testArgv`. */
export function configuredMaster(options: ConfiguredMasterOptions): ConfiguredMaster {
  const { spec } = options
  const never = new AbortController().signal

  async function check(): Promise<void> {
    const result = await run(options.testArgv)
    if (result.code !== 0)
      throw new NodeFailure(
        `${spec.name} refuses its configuration: ${outputOf(result)}`,
        options.refusedCode,
      )
  }

  async function reload(pid: number): Promise<void> {
    await reloadMaster(spec, pid)
    await rm(options.pendingFile, { force: true })
  }

  return {
    spec,
    running: () => runningMaster(spec),
    check,
    async start() {
      const pid = runningMaster(spec)
      if (pid !== null) {
        if (existsSync(options.pendingFile)) await reload(pid)
        return []
      }
      const ended = await endLeftovers(spec)
      await check()
      await startMaster(spec)
      await rm(options.pendingFile, { force: true })
      return ended
    },
    async stop() {
      const pid = runningMaster(spec)
      if (pid !== null) await stopMaster(spec, pid)
      await endLeftovers(spec)
    },
    async put(path, content, signal, mode = options.fileMode ?? 0o600) {
      signal.throwIfAborted()
      const previous = await readOrNull(path)
      if (previous === content) return
      await writeFileIfAbsent(options.pendingFile, '', never)
      if (content === null) await rm(path, { force: true })
      else await writeFileAtomic(path, content, signal, mode)
      try {
        await check()
      } catch (error) {
        if (previous === null) await rm(path, { force: true })
        else await writeFileAtomic(path, previous, never, mode)
        if (error instanceof NodeFailure)
          throw new NodeFailure(
            `${spec.name} refused the change to ${path}, which is back as it was: ${error.message}`,
            error.code,
          )
        throw error
      }
    },
    async applyPending() {
      if (!existsSync(options.pendingFile)) return
      const pid = runningMaster(spec)
      if (pid !== null) await reload(pid)
    },
  }
}
