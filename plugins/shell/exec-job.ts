// The `site.exec` job: runs a command on the site's node, in its sandbox, reporting its output lines as they come
// (the job's event stream carries them) and ending with how it ended. Run once: a command is never repeated on its
// own (a retry could run a `wp db import` twice), so a run taken up again after a crash fails instead.

import {
  abortable,
  type JobDefinition,
  JobFailure,
  type JobRun,
  type PluginContext,
} from '../../core/index.ts'
import { type Node, NodeRefusal, nodeDirectory } from '../nodes/contract.ts'
import {
  type ExecOutcome,
  type ExecRead,
  execOutputCapBytes,
  execTimeouts,
  shellServiceName,
} from './contract.ts'
import { siteGoneCheck, siteUnavailable } from './site-availability.ts'

/** The job's kind. */
export const execJobKind = 'site.exec'

/** What the job is given. */
export interface ExecInput {
  readonly siteId: string
  readonly nodeId: string
  readonly argv: readonly string[]
  readonly cwd: string
  readonly timeoutSeconds: number
}

/** How long each read waits on the node for more output. */
const readWaitMs = 1000

/** The job definition. */
export function execJob(context: PluginContext, laneSize: number): JobDefinition {
  const nodes = context.use(nodeDirectory)
  const siteGone = siteGoneCheck(context)
  /** The failure of a command its site's suspension or deletion ended (the node killed all of the site's user). */
  const killedWithSite = () =>
    new JobFailure(
      'The site was suspended or removed while the command ran: the command was killed with it.',
      siteUnavailable,
    )

  async function run(job: JobRun): Promise<Record<string, unknown>> {
    const input = job.input as unknown as ExecInput
    if (job.attempt > 1)
      throw new JobFailure(
        'The command’s run was interrupted (the panel stopped); it is not started again on its own.',
        'exec_interrupted',
      )
    const node = await nodes.find(input.nodeId)
    if (!node) throw new JobFailure(`The site’s node ${input.nodeId} is gone`, 'node_missing')
    // Every call gives up once the job is cancelled, even where the driver does not watch its signal (the local
    // node's calls run in process to their end).
    const call = (request: Record<string, unknown>, signal: AbortSignal) =>
      abortable(
        nodes.call(node, { siteId: input.siteId, service: shellServiceName, request }, signal),
        signal,
      )
    await job.progress(5, 'starting the command')
    const { execId } = (await refusalsFail(() =>
      call(
        {
          op: 'exec.start',
          argv: input.argv,
          cwd: input.cwd,
          timeoutMs: input.timeoutSeconds * 1000,
          outputCapBytes: execOutputCapBytes,
        },
        job.signal,
      ),
    )) as { execId: string }
    await job.progress(10, 'running')
    let after = 0
    try {
      for (;;) {
        job.signal.throwIfAborted()
        let read: ExecRead
        try {
          read = (await call({ op: 'exec.read', execId, after, waitMs: readWaitMs }, job.signal)) as ExecRead
        } catch (error) {
          // The node no longer runs the site (suspended, removed) or forgot the command with it.
          if (error instanceof NodeRefusal && (await siteGone(input.siteId).catch(() => false)))
            throw killedWithSite()
          throw error instanceof NodeRefusal ? new JobFailure(error.message, error.code) : error
        }
        for (const line of read.lines) job.output(line.line, line.stream)
        after = read.next
        if (read.outcome) {
          const outcome = read.outcome as ExecOutcome
          // Killed by a signal, neither at its timeout nor cancelled, while its site is no longer running: the
          // site's suspension or deletion ended it, not the command itself.
          if (
            outcome.signal !== null &&
            !outcome.timedOut &&
            (await siteGone(input.siteId).catch(() => false))
          )
            throw killedWithSite()
          return { ...outcome }
        }
      }
    } catch (error) {
      // Cancelled, or the panel stopping: the command goes too (a fresh signal: the job's is aborted).
      if (job.signal.aborted)
        await stop(node, input.siteId, execId, (request, signal) =>
          nodes.call(node, { siteId: input.siteId, service: shellServiceName, request }, signal),
        )
      throw error
    }
  }

  return {
    kind: execJobKind,
    description:
      'Runs a command in a site’s sandbox on its node, as the site’s user; its output lines stream through the job’s events, and its result is `{ exitCode, signal, timedOut, durationMs, stdout, stderr, truncated }`. A command killed by its site’s suspension or deletion fails with `site_unavailable`.',
    cancellable: true,
    maxAttempts: 1,
    lane: { name: 'exec', concurrency: laneSize },
    timeoutMs: (execTimeouts.maxSeconds + 120) * 1000,
    run,
  }
}

/** Kills the command; a node that cannot be reached has it end at its own timeout. */
async function stop(
  _node: Node,
  _siteId: string,
  execId: string,
  call: (request: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>,
): Promise<void> {
  await call({ op: 'exec.cancel', execId }, AbortSignal.timeout(10_000)).catch(() => {})
}

/** A node's refusal fails the job at once, with its code (`working_directory_missing`, `shell_unavailable`, …). */
async function refusalsFail<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof NodeRefusal) throw new JobFailure(error.message, error.code)
    throw error
  }
}
