// Drives one run of the `backups` node service for a job: starts it, reads its progress into the job until it
// ends, and cancels it on the node when the job is aborted (cancelled, timed out, or the panel stopping).

import { abortable, type JobRun } from '../../core/index.ts'
import { type Node, type NodeDirectory, NodeRefusal } from '../nodes/contract.ts'
import type { BackupTask, RunOutcome, RunRead } from './contract.ts'
import { backupsServiceName } from './contract.ts'

/** How long each read waits on the node for the run to move. */
const readWaitMs = 2000

/** Where a run's progress lands in its job's: `from` to `to` percent, and a prefix for its steps. */
export interface ProgressSpan {
  readonly from: number
  readonly to: number
  readonly prefix?: string
}

/** What follows a run: a job (its signal and progress), or a download's request (its signal, no progress). */
export type RunFollower = Pick<JobRun, 'signal' | 'progress'>

/** A failed run's outcome, as the node words it (`repository_corrupt`, `dump_failed`, …). */
export type FailedRun = Extract<RunOutcome, { ok: false }>

/**
 * Runs `task` on `node` for the site `siteId` and answers how it ended: an `ok: false` outcome is answered, not
 * thrown (the caller records it on its backup). A refusal of the node service (`site_not_on_node`, …) is answered
 * as a failed outcome with its code; a node that cannot be reached throws (the caller records it as it fails).
 */
export async function runOnNode(
  nodes: NodeDirectory,
  node: Node,
  siteId: string,
  task: BackupTask,
  job: RunFollower,
  span: ProgressSpan = { from: 5, to: 95 },
): Promise<RunOutcome> {
  const call = (request: Record<string, unknown>, signal: AbortSignal) =>
    abortable(nodes.call(node, { siteId, service: backupsServiceName, request }, signal), signal)
  let runId: string
  try {
    ;({ runId } = (await call({ op: 'run.start', run: task }, job.signal)) as { runId: string })
  } catch (error) {
    if (error instanceof NodeRefusal) return { ok: false, code: error.code, message: error.message }
    throw error
  }
  try {
    for (;;) {
      job.signal.throwIfAborted()
      let read: RunRead
      try {
        read = (await call({ op: 'run.read', runId, waitMs: readWaitMs }, job.signal)) as RunRead
      } catch (error) {
        if (error instanceof NodeRefusal) return { ok: false, code: error.code, message: error.message }
        throw error
      }
      const percent = Math.round(span.from + ((span.to - span.from) * read.progress) / 100)
      await job.progress(percent, span.prefix ? `${span.prefix}: ${read.step}` : read.step)
      if (read.outcome) return read.outcome
    }
  } catch (error) {
    // Cancelled, or the panel stopping: the run goes too (a fresh signal: the job's is aborted).
    if (job.signal.aborted)
      await nodes
        .call(
          node,
          { siteId, service: backupsServiceName, request: { op: 'run.cancel', runId } },
          AbortSignal.timeout(10_000),
        )
        .catch(() => {})
    throw error
  }
}
