// The runs of one node process (backups, restores, forgets, archives): each started at once and carried out in the
// background, its progress and outcome read back with `run.read` (which waits for a change up to `waitMs`, and
// answers the outcome as often as asked once there is one), and killed with `run.cancel`. Kept in memory: a node
// restarted meanwhile has forgotten them (the panel then fails the run).

import type { NodeSite } from '../../nodes/node/contract.ts'
import { NodeRefusal } from '../../nodes/node/contract.ts'
import { ProcessGroups } from './processes.ts'
import type { RunOutcome, RunRead } from './protocol.ts'
import type { RunContext } from './run-context.ts'
import { RunFailure } from './run-failure.ts'

/** How long a finished run's outcome waits to be read. */
const keepFinishedMs = 3600_000

interface Run {
  readonly siteId: string
  progress: number
  step: string
  outcome: RunOutcome | null
  readonly groups: ProcessGroups
  readonly abort: AbortController
  readonly waiters: Set<() => void>
}

/** What a task does, given its run. */
export type TaskBody = (context: RunContext) => Promise<RunOutcome>

/** The outcome of a task that threw. */
function failedOutcome(error: unknown, cancelled: boolean): RunOutcome {
  if (cancelled) return { ok: false, code: 'cancelled', message: 'The run was cancelled.' }
  if (error instanceof RunFailure) return { ok: false, code: error.code, message: error.message }
  if (error instanceof NodeRefusal) return { ok: false, code: 'failed', message: error.message }
  // An error of the node's own (a file it could not write): its text may name the node's paths, so it is not shown.
  return { ok: false, code: 'failed', message: 'The node failed to carry out the run (its log says why).' }
}

/** The runs of this node process. */
export function createRuns(dataDir: () => string, log: (error: unknown, runId: string) => void) {
  const runs = new Map<string, Run>()

  const wake = (run: Run) => {
    for (const waiter of run.waiters) waiter()
    run.waiters.clear()
  }

  const find = (site: NodeSite, runId: string): Run => {
    const run = typeof runId === 'string' ? runs.get(runId) : undefined
    if (!run || run.siteId !== site.id)
      throw new NodeRefusal(
        'run_not_found',
        'The node has no such run (it ended long ago, or the node restarted).',
      )
    return run
  }

  return {
    /** Starts `body` for the site; answers its id at once. */
    start(site: NodeSite, body: TaskBody): string {
      const runId = `run_${crypto.randomUUID().replaceAll('-', '')}`
      const run: Run = {
        siteId: site.id,
        progress: 0,
        step: 'starting',
        outcome: null,
        groups: new ProcessGroups(),
        abort: new AbortController(),
        waiters: new Set(),
      }
      runs.set(runId, run)
      const context: RunContext = {
        runId,
        dataDir: dataDir(),
        groups: run.groups,
        signal: run.abort.signal,
        report(progress, step) {
          const next = Math.max(run.progress, Math.min(99, Math.round(progress)))
          if (run.outcome || (next === run.progress && step === run.step)) return
          run.progress = next
          run.step = step
          wake(run)
        },
      }
      void (async () => {
        let outcome: RunOutcome
        try {
          outcome = await body(context)
          if (run.abort.signal.aborted) outcome = failedOutcome(null, true)
        } catch (error) {
          if (!(error instanceof RunFailure) && !run.abort.signal.aborted) log(error, runId)
          outcome = failedOutcome(error, run.abort.signal.aborted)
        }
        run.groups.killAll()
        run.outcome = outcome
        run.progress = 100
        run.step = outcome.ok ? 'done' : 'failed'
        wake(run)
        setTimeout(() => runs.delete(runId), keepFinishedMs).unref?.()
      })()
      return runId
    },

    /** Where the run is, after waiting up to `waitMs` for a change (none once it ended). */
    async read(site: NodeSite, runId: string, waitMs: number): Promise<RunRead> {
      const run = find(site, runId)
      if (!run.outcome && waitMs > 0)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, waitMs)
          function done() {
            clearTimeout(timer)
            run.waiters.delete(done)
            resolve()
          }
          run.waiters.add(done)
        })
      return { progress: run.progress, step: run.step, outcome: run.outcome }
    },

    /** Kills the run's programs; its outcome becomes `cancelled`. */
    cancel(site: NodeSite, runId: string): void {
      const run = find(site, runId)
      if (run.outcome) return
      run.abort.abort()
      run.groups.killAll()
    },

    /** Kills every run (the node stops). */
    stopAll(): void {
      for (const run of runs.values())
        if (!run.outcome) {
          run.abort.abort()
          run.groups.killAll()
        }
    },
  }
}
