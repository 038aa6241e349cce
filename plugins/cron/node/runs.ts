// The cron runs of one node process: each command started at once as the site's user, in its cgroup, killed at its
// timeout, its output's tail kept; its state read back by the panel until it ended, then forgotten. Kept in
// memory: a node restarted meanwhile has forgotten them, and the panel records the run as lost.

import { join } from 'node:path'
import type { NodeSite } from '../../nodes/node/contract.ts'
import { NodeRefusal } from '../../nodes/node/contract.ts'
import { type CronTask, outputTailBytes, type RunState } from './protocol.ts'

/** How long a finished run waits to be read before it is dropped. */
const keepFinishedMs = 6 * 3600_000
/** How long a killed run's output is waited for (a program that escaped its namespace holding the pipe). */
const drainGraceMs = 5000

interface Run {
  readonly siteId: string
  readonly startedAt: Date
  readonly child: ReturnType<typeof Bun.spawn>
  state: RunState
}

/** The last `limit` bytes of what a run printed, as it comes. */
export class OutputTail {
  private chunks: Uint8Array[] = []
  private size = 0
  truncated = false
  constructor(private readonly limit: number) {}
  push(chunk: Uint8Array): void {
    this.chunks.push(chunk)
    this.size += chunk.length
    while (this.size > this.limit && this.chunks.length > 0) {
      const first = this.chunks[0] as Uint8Array
      const over = this.size - this.limit
      this.truncated = true
      if (first.length <= over) {
        this.chunks.shift()
        this.size -= first.length
      } else {
        this.chunks[0] = first.subarray(over)
        this.size -= over
      }
    }
  }
  /** The tail as text (a character cut at its start shown as U+FFFD). */
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8')
  }
}

/** The argv a task runs, and the folder it runs in. */
function commandOf(site: NodeSite, task: CronTask): { argv: string[]; cwd: string } {
  if (task.kind === 'wp-cron') return { argv: ['php', '-f', 'wp-cron.php'], cwd: join(site.home, 'htdocs') }
  return { argv: ['/bin/sh', '-c', task.command], cwd: site.home }
}

/**
 * Kills a run's programs. Its first process dying takes the run's own PID namespace with it (`NodeSite.asUser`'s
 * command line holds it to that), every process in it killed by the kernel. The process group covers a node without
 * Unix users per site (no namespace).
 */
function kill(child: ReturnType<typeof Bun.spawn>): void {
  try {
    process.kill(-child.pid, 'SIGKILL')
  } catch {}
  try {
    child.kill('SIGKILL')
  } catch {}
}

/** The runs of this node process. */
export function createCronRuns() {
  const runs = new Map<string, Run>()

  const find = (site: NodeSite, runId: string): Run => {
    const run = runs.get(runId)
    if (!run || run.siteId !== site.id)
      throw new NodeRefusal(
        'cron_run_not_found',
        'The node has no such run (the node restarted, or it was read).',
      )
    return run
  }

  return {
    /** Starts the task as the site's user (a run id already known answers its state); refuses a site not active. */
    start(site: NodeSite, runId: string, task: CronTask, timeoutSeconds: number): RunState {
      if (site.state !== 'active')
        throw new NodeRefusal('site_suspended', 'The site is suspended: its jobs do not run.')
      const known = runs.get(runId)
      if (known) {
        if (known.siteId !== site.id)
          throw new NodeRefusal('cron_run_not_found', 'The run belongs to another site.')
        return known.state
      }
      const { argv, cwd } = commandOf(site, task)
      const startedAt = new Date()
      let child: ReturnType<typeof Bun.spawn>
      try {
        child = Bun.spawn(site.asUser(argv), {
          cwd,
          env: { ...site.environment },
          stdin: 'ignore',
          // A process group of its own, so that a kill reaches whatever it started.
          detached: true,
          stdout: 'pipe',
          stderr: 'pipe',
        })
      } catch {
        // Its folder is gone (a WordPress site without htdocs/), or the node cannot start programs.
        throw new NodeRefusal(
          'cron_run_not_started',
          `The run could not start in ${task.kind === 'wp-cron' ? 'htdocs/' : 'the site’s home'}.`,
        )
      }
      const run: Run = {
        siteId: site.id,
        startedAt,
        child,
        state: { state: 'running', startedAt: startedAt.toISOString() },
      }
      runs.set(runId, run)
      const tail = new OutputTail(outputTailBytes)
      let timedOut = false
      // Killed outright at its timeout: its first process takes its whole PID namespace with it.
      const timer = setTimeout(() => {
        timedOut = true
        kill(child)
      }, timeoutSeconds * 1000)
      const drain = async (stream: ReadableStream<Uint8Array>) => {
        for await (const chunk of stream) tail.push(chunk)
      }
      void (async () => {
        const drained = Promise.all([
          drain(child.stdout as ReadableStream<Uint8Array>).catch(() => {}),
          drain(child.stderr as ReadableStream<Uint8Array>).catch(() => {}),
        ])
        const code = await child.exited
        clearTimeout(timer)
        await Promise.race([drained, Bun.sleep(drainGraceMs)])
        const finishedAt = new Date()
        run.state = {
          state: 'finished',
          startedAt: startedAt.toISOString(),
          finishedAt: finishedAt.toISOString(),
          durationMs: finishedAt.getTime() - startedAt.getTime(),
          // A run killed (its timeout, or a signal such as the memory limit's SIGKILL) has no exit code.
          exitCode: timedOut || child.signalCode ? null : code,
          timedOut,
          output: tail.text(),
          outputTruncated: tail.truncated,
        }
        setTimeout(() => runs.delete(runId), keepFinishedMs).unref?.()
      })()
      return run.state
    },

    /** The run's state now. */
    read(site: NodeSite, runId: string): RunState {
      return find(site, runId).state
    },

    /** Drops a finished run (the panel recorded it); kills one still running. */
    forget(site: NodeSite, runId: string): void {
      const run = runs.get(runId)
      if (!run || run.siteId !== site.id) return
      if (run.state.state === 'running') kill(run.child)
      else runs.delete(runId)
    },

    /** Kills every run (the node stops). */
    stopAll(): void {
      for (const run of runs.values()) if (run.state.state === 'running') kill(run.child)
    },
  }
}
