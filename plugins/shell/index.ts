// The shell plugin: commands (`POST /sites/{id}/exec`, a job streaming its output) and interactive shells (a
// WebSocket to bash on a real terminal) in a site, as the site's Unix user, confined to the site with bubblewrap on
// the site's node. docs/shell.md describes it.

import { definePlugin } from '../../core/index.ts'
import { addConsolePages } from '../console/contract.ts'
import { customerDependents } from '../customers/contract.ts'
import { nodeModules } from '../nodes/contract.ts'
import { siteDependents } from '../sites/contract.ts'
import { execJob } from './exec-job.ts'
import { shellMigrations } from './migrations.ts'
import shellNodeModule from './node/index.ts'
import { shellProblems } from './problems.ts'
import { execRoutes } from './routes/exec.ts'
import { shellSessionRoutes } from './routes/shell-sessions.ts'
import { createRelays } from './shell-relay.ts'
import { removeCustomerSessions, removeSessionsOf } from './site-events.ts'

/** Options of {@link shellPlugin}. */
export interface ShellOptions {
  /** A shell session without input for this long ends. Default 15 minutes (`SHELL_IDLE_SECONDS`). */
  readonly idleTimeoutMs?: number
  /** Shell sessions pending or open per site at once. Default 3 (`SHELL_SESSIONS_PER_SITE`). */
  readonly sessionsPerSite?: number
  /** Origins allowed to open a shell's WebSocket besides the panel's own (`SHELL_ALLOWED_ORIGINS`). Default none. */
  readonly allowedOrigins?: readonly string[]
  /** The most a session's recording keeps, in bytes. Default 5 MiB. */
  readonly recordingCapBytes?: number
  /**
   * Commands (`site.exec` jobs) run at once on each panel instance, in a pool of their own: they never take the
   * workers of the panel's other jobs (provisioning, suspensions). Default 4.
   */
  readonly execConcurrency?: number
  /** How often a live session checks its requester may still open shells in the site. Default 5 s. */
  readonly accessCheckMs?: number
}

/** Commands and shells in sites (`site:shell`). */
export const shellPlugin = (options: ShellOptions = {}) => {
  let relays: ReturnType<typeof createRelays> | null = null
  return definePlugin({
    name: 'shell',
    version: '0.1.0',
    description: 'Commands and interactive shells in sites, as the site’s user, confined to the site.',
    requires: ['customers', 'sites', 'nodes'],
    // Its console pages, when the installation has a console.
    enhances: ['console'],
    problems: shellProblems,
    migrations: shellMigrations,
    setup(context) {
      addConsolePages(context, import.meta.dir)
      // The local node runs the module in process; remote nodes load the same file.
      context.extensionPoint(nodeModules).add({ module: shellNodeModule })
      // A deleted site's sessions and their recordings go with it.
      context.extensionPoint(customerDependents).add({
        name: 'shell',
        remove: (run, customer) => run.transaction((trx) => removeCustomerSessions(trx, customer.id)),
      })
      context.extensionPoint(siteDependents).add({
        name: 'shell',
        remove: (run, site) => run.transaction((trx) => removeSessionsOf(trx, site.id)),
      })
    },
    jobs: (context) => [execJob(context, options.execConcurrency ?? 4)],
    start() {
      return async () => {
        await relays?.stopAll()
      }
    },
    routes(context) {
      relays = createRelays(context, {
        idleTimeoutMs: options.idleTimeoutMs ?? 15 * 60_000,
        recordingCapBytes: options.recordingCapBytes ?? 5 * 1024 * 1024,
        accessCheckMs: options.accessCheckMs ?? 5000,
      })
      return [
        ...execRoutes(context),
        ...shellSessionRoutes(
          context,
          { sessionsPerSite: options.sessionsPerSite ?? 3, allowedOrigins: options.allowedOrigins ?? [] },
          relays,
        ),
      ]
    },
  })
}
