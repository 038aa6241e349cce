// Archives as jobs: `file.archive` makes a zip or tar.gz of paths of a site, `file.extract` extracts one into a
// folder, each on the site's node (as its user), its progress asked of the node every second and kept on the job
// (so `GET /jobs/{id}/events` streams it). A refusal (an entry escaping, no room) fails the job at once with its code.

import { type JobDefinition, JobFailure, type JobRun, type PluginContext, Problem } from '../../core/index.ts'
import { nodeUnavailable } from '../nodes/contract.ts'
import type { FilesRequest, TaskProgress } from './protocol.ts'
import { type SiteFiles, siteFilesOf } from './site-files.ts'

/** What `file.archive` is given. */
export interface ArchiveInput {
  readonly paths: readonly string[]
  readonly to: string
  readonly overwrite: boolean
}

/** What `file.extract` is given. */
export interface ExtractInput {
  readonly path: string
  readonly to: string
  readonly overwrite: boolean
}

/** The longest an archive or extraction may take on the node. */
const taskTimeoutMs = 60 * 60_000

/** How often the node is asked how far a task got. */
const progressEveryMs = 1_000

/** Runs `work` on the node, reporting its progress; a refusal fails the job for good, an unreachable node retries. */
async function tracked(
  job: JobRun,
  files: SiteFiles,
  step: string,
  work: () => Promise<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  await job.progress(5, step)
  let finished = false
  const watching = (async () => {
    while (!finished && !job.signal.aborted) {
      await Bun.sleep(progressEveryMs)
      if (finished) return
      const progress = await files
        .call<TaskProgress | null>({ op: 'progress', task: job.id }, job.signal)
        .catch(() => null)
      if (progress && progress.total > 0 && !finished)
        await job
          .progress(
            5 + Math.floor((90 * progress.done) / progress.total),
            `${step}: ${progress.done} of ${progress.total} entries`,
          )
          .catch(() => {})
    }
  })()
  try {
    const result = await work()
    await job.progress(100, 'done')
    return result
  } catch (error) {
    if (error instanceof Problem && error.code !== nodeUnavailable.code)
      throw new JobFailure(error.detail ?? error.message, error.code)
    throw error
  } finally {
    finished = true
    await watching
  }
}

/** The archive jobs. */
export function archiveJobs(context: PluginContext): JobDefinition[] {
  const open = siteFilesOf(context)
  const filesOf = (job: JobRun) =>
    open({ kind: 'customers', customerIds: job.customerId ? [job.customerId] : [] }, job.subject.id)
  /** A job running one archive task on the node, under the job's id (the task its progress is asked by). */
  const taskJob = (
    kind: string,
    description: string,
    step: string,
    request: (job: JobRun) => FilesRequest,
  ): JobDefinition => ({
    kind,
    description,
    timeoutMs: taskTimeoutMs,
    maxAttempts: 3,
    // Long work customers start at will: in a lane of its own, shared between customers, it never holds the
    // workers of provisioning and the rest.
    lane: { name: 'archives', concurrency: 2 },
    async run(job) {
      const files = await filesOf(job)
      return tracked(job, files, step, () => files.call(request(job), job.signal, taskTimeoutMs))
    },
  })
  return [
    taskJob('file.archive', 'Makes a zip or tar.gz of paths of a site, on its node.', 'archiving', (job) => {
      const input = job.input as unknown as ArchiveInput
      return { op: 'archive', task: job.id, paths: input.paths, to: input.to, overwrite: input.overwrite }
    }),
    taskJob(
      'file.extract',
      'Extracts a zip or tar.gz of a site into a folder, on its node.',
      'extracting',
      (job) => {
        const input = job.input as unknown as ExtractInput
        return { op: 'extract', task: job.id, path: input.path, to: input.to, overwrite: input.overwrite }
      },
    ),
  ]
}
