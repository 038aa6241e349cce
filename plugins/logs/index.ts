// The logs plugin: a site's access, error and PHP logs through the API (`GET /sites/{id}/logs/{kind}`), the last
// entries as JSON or followed live as Server-Sent Events, read on the site's node by the `logs` node service
// (node/), which the local node and every agent run. Rotation and retention are the node runtime's (docs/logs.md).

import { definePlugin } from '../../core/index.ts'
import { addConsolePages } from '../console/contract.ts'
import { nodeModules } from '../nodes/contract.ts'
import { logScopes } from './contract.ts'
import type { FollowPace } from './follow-stream.ts'
import logsNodeModule from './node/index.ts'
import { logsProblems } from './problems.ts'
import { logRoutes } from './routes/logs.ts'

/** Options of {@link logsPlugin}. */
export interface LogsOptions {
  /** How a follow paces its reads of the node (tests make it quicker). Default a read every 500 ms. */
  readonly follow?: FollowPace
}

/** Sites' logs: `log:read`, held by owners, admins and developers. */
export const logsPlugin = (options: LogsOptions = {}) =>
  definePlugin({
    name: 'logs',
    version: '0.1.0',
    description: 'A site’s access, error and PHP logs: the last entries, filtered, or followed live.',
    requires: ['sites', 'nodes'],
    // Its console tab, when the installation has a console.
    enhances: ['console'],
    scopes: [
      {
        name: logScopes.read,
        description: 'Read and follow sites’ access, error and PHP logs',
        roles: ['owner', 'admin', 'developer'],
      },
    ],
    problems: logsProblems,
    setup(context) {
      addConsolePages(context, import.meta.dir)
      // The node service that reads the logs, run by the local node in process and by every agent.
      context.extensionPoint(nodeModules).add({ module: logsNodeModule })
    },
    routes: (context) => logRoutes(context, options.follow),
  })
