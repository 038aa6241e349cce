// POST /sites/{id}/exec: a command in the site's sandbox, as a job whose events carry its output lines.

import { createHash } from 'node:crypto'
import {
  type ChangedResource,
  defineRoute,
  fieldProblem,
  orNotFound,
  type PluginContext,
  Problem,
  recorded,
} from '../../../core/index.ts'
import { nodeDirectory } from '../../nodes/contract.ts'
import { requireRunningSite, runningSiteProblems, siteDirectory, siteScopes } from '../../sites/contract.ts'
import { ExecAccepted, ExecRequest, execTimeouts } from '../contract.ts'
import { type ExecInput, execJobKind } from '../exec-job.ts'
import { shellProblems } from '../problems.ts'
import { checkArgv, siteDirectory as workingDirectory } from '../site-command.ts'

/**
 * What the audit entry says of a command: the program, the number of arguments and a SHA-256 of the whole argv
 * (arguments may hold secrets).
 */
const commandDetails = ({ jobId, argv, cwd, timeoutSeconds }: ChangedResource) => ({
  jobId,
  program: (argv as string[])[0],
  arguments: (argv as string[]).length - 1,
  argvSha256: createHash('sha256').update(JSON.stringify(argv)).digest('hex'),
  cwd,
  timeoutSeconds,
})

/** The exec route. */
export function execRoutes(context: PluginContext) {
  const sites = context.use(siteDirectory)
  const nodes = context.use(nodeDirectory)
  return [
    defineRoute({
      method: 'POST',
      path: '/sites/:id/exec',
      operationId: 'execInSite',
      summary: 'Run a command in a site',
      description:
        'Runs `argv` (never through a shell) as the site’s Unix user, confined to the site (its `/htdocs` and `/tmp` writable, `/logs` read-only, nothing else of the node or other sites visible; the network is shared). Answers 202 with the `jobId` of a `site.exec` job: `GET /jobs/{id}/events` streams its output lines as they come, and the finished job’s `result` is `{ exitCode, signal, timedOut, durationMs, stdout, stderr, truncated }` (each stream kept up to 1 MiB; `truncated` when more was written). A job that fails says why in `error.code`: `working_directory_missing`, `shell_unavailable`, `exec_interrupted`. Audited as `site.exec` with the program, the number of arguments and a SHA-256 of the whole argv (arguments may hold secrets).',
      scope: siteScopes.shell,
      params: { id: 'site' },
      body: ExecRequest,
      idempotent: true,
      responses: { 202: { description: 'The command was started: follow its job.', schema: ExecAccepted } },
      problems: [
        shellProblems.invalid_argv,
        shellProblems.invalid_working_directory,
        shellProblems.shell_unavailable,
        ...runningSiteProblems,
      ],
      change: {
        action: 'site.exec',
        subject: ({ siteId }) => ({ type: 'site', id: String(siteId) }),
        details: commandDetails,
      },
      // The command is checked, and the site's node asked whether it can run one, before the transaction.
      async prepare({ db, params, body, view }) {
        const argv = checkArgv(body.argv)
        if (typeof argv === 'string') throw fieldProblem(shellProblems.invalid_argv, 'body.argv')
        const cwd = workingDirectory(body.cwd)
        if (cwd === null) throw fieldProblem(shellProblems.invalid_working_directory, 'body.cwd')
        const placed = orNotFound(await sites.find(db, view, params.id))
        const node = placed.nodeId ? await nodes.find(placed.nodeId) : null
        if (node?.agent.capabilities?.unixUsers === false) throw new Problem(shellProblems.shell_unavailable)
        return { argv, cwd, timeoutSeconds: body.timeoutSeconds ?? execTimeouts.defaultSeconds }
      },
      async handler({ trx, params, view, enqueueJob, prepared: { argv, cwd, timeoutSeconds } }) {
        const site = orNotFound(await sites.find(trx, view, params.id))
        requireRunningSite(site)
        const input: ExecInput = { siteId: site.id, nodeId: site.nodeId ?? '', argv, cwd, timeoutSeconds }
        const jobId = await enqueueJob(trx, {
          kind: execJobKind,
          customerId: site.customerId,
          subject: { type: 'site', id: site.id },
          input: { ...input },
        })
        return recorded(
          { jobId, siteId: site.id, argv, cwd, timeoutSeconds },
          { customerId: site.customerId },
        )
      },
    }),
  ]
}
