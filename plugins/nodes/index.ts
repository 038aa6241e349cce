// The nodes plugin: the servers sites run on, an administrative area for platform staff, the node drivers
// registry (with the built-in `local` driver), and the endpoint where nodes report traffic.

import { definePlugin, JobFailure } from '../../core/index.ts'
import { addConsolePages } from '../console/contract.ts'
import {
  type LocatedSite,
  Node,
  type NodeDirectory,
  NodeFailure,
  type NodeModuleEntry,
  nodeCommand,
  nodeDependents,
  nodeDirectory,
  nodeDrivers,
  nodeModules,
  nodeReconcilers,
  nodeScopes,
  nodeWatchers,
  siteLocators,
} from './contract.ts'
import { diskSection } from './disk.ts'
import { createLocalDriver, type LocalDriver } from './drivers/local.ts'
import { startLocalNode } from './local-node.ts'
import { nodesMigrations } from './migrations.ts'
import { nodeVersion } from './node/index.ts'
import { nodesProblems } from './problems.ts'
import { defaultReconcileIntervalMs, reconcileJob, reconcileSchedule } from './reconcile.ts'
import { createAgentDriver } from './remote/agent-driver.ts'
import { type CommandQueue, createCommandQueue } from './remote/command-queue.ts'
import { activeNodeRows, findNodeRow, localNodeRows, toNode } from './repository.ts'
import { agentRoutes } from './routes/agent.ts'
import { metricsRoutes } from './routes/metrics.ts'
import { nodeRoutes } from './routes/nodes.ts'
import { reconcileRoutes } from './routes/reconcile.ts'
import { trafficSection } from './traffic.ts'

/** Options of {@link nodesPlugin}. */
export interface NodesOptions {
  /** The panel's data directory; the `local` driver keeps sites under `<dataDir>/sites/`. */
  readonly dataDir: string
  /**
   * Install the built-in `local` driver, and seed a node named `local` on a fresh install. Default true; false
   * for installations whose sites all run on remote nodes (their drivers come from other plugins).
   */
  readonly local?: boolean
  /**
   * Serve the local node's sites with the machine's nginx and PHP-FPM (when installed), from `dataDir` (one of its
   * own, not the panel's) on `httpPort`. Absent: the local driver lays out the sites' files only.
   */
  readonly localServing?: { readonly dataDir: string; readonly httpPort: number; readonly httpsPort: number }
  /**
   * How often every connected node is reconciled (asked what it holds, and what is missing put back), besides at
   * each connection of its agent and the local node at the panel's start. Default ten minutes; 0 for never.
   */
  readonly reconcileIntervalMs?: number
  /**
   * How often the local node says again what it runs, as an agent does (its services' states: its own MariaDB
   * stopped, say), so placement reads it fresh. Default a minute.
   */
  readonly localReportIntervalMs?: number
}

/** `promise`, or nothing after `ms` (a timer that keeps no process alive). */
function waitAtMost(promise: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms)
    timer.unref?.()
    void promise.finally(() => {
      clearTimeout(timer)
      resolve()
    })
  })
}

/** Nodes: platform staff register servers; the sites plugin places sites on them and runs them through drivers. */
export const nodesPlugin = (options: NodesOptions) => {
  const local = options.local !== false
  // Whether the local node serves its sites (then it is ready once its masters run), or lays out files only.
  const localServes = local && options.localServing !== undefined
  // The node modules plugins add during setup; the local node and the agents' work read them at each use.
  let modules: () => readonly NodeModuleEntry[] = () => []
  // Made here, not in setup, so a data directory the driver cannot use fails at once, naming the directory.
  const localDriver: LocalDriver | null = local
    ? createLocalDriver({
        ...(options.localServing ?? { dataDir: options.dataDir }),
        modules: () => modules(),
      })
    : null
  let queue: CommandQueue | undefined
  // Settles once the local node said what it runs after this process started it (placement waits for it).
  let localReported: Promise<void> = Promise.resolve()
  let localSettled = true
  return definePlugin({
    name: 'nodes',
    version: '0.1.0',
    description: 'Nodes: the servers sites run on, their drivers, and the traffic they report.',
    // Its console pages, when the installation has a console.
    enhances: ['console'],
    scopes: [
      { name: nodeScopes.read, description: 'Read nodes (platform staff only)', staff: 'platform' },
      {
        name: nodeScopes.manage,
        description: 'Add and change nodes (platform staff only)',
        staff: 'platform',
      },
    ],
    problems: nodesProblems,
    migrations: nodesMigrations({ seedLocal: local }),
    // The traffic and disk use nodes report (`POST /nodes/{id}/metrics`), summed in `GET /usage`.
    usageSections: [trafficSection, diskSection],
    extensionPoints: [nodeDrivers, siteLocators, nodeModules, nodeWatchers, nodeDependents, nodeReconcilers],
    events: [
      {
        kind: 'node.drifted',
        description:
          'Reconciliation found on the node something the panel does not know (a site, a server block, a pool, a home of no site): `inventory.unknown` lists it; it is left alone. Sent once per new finding: when a round finds something the round before did not (not when something found before is gone).',
        payload: Node,
      },
    ],
    setup(context) {
      addConsolePages(context, import.meta.dir)
      const declared = context.extensionPoint(nodeModules)
      modules = () => declared.list()
      const drivers = context.extensionPoint(nodeDrivers)
      if (localDriver) drivers.add(localDriver)
      // Remote nodes run the node agent, which dials in for the commands this driver queues.
      queue = createCommandQueue(context)
      drivers.add(createAgentDriver(queue))
      const send: NodeDirectory['send'] = async (node, command, signal, run) => {
        // Read at call time: drivers other plugins add during their setup come after this one's.
        const driver = drivers.get(node.driver)
        if (!driver)
          throw new Error(
            `Node ${node.name} (${node.id}) uses the driver "${node.driver}", which is not installed`,
          )
        try {
          return await driver.send(node, command, signal, run)
        } catch (error) {
          // What the node calls hopeless fails the job at once, with the node's code.
          if (error instanceof NodeFailure) throw new JobFailure(error.message, error.code)
          throw error
        }
      }
      context.provide(nodeDirectory, {
        async find(id, db = context.db) {
          const row = await findNodeRow(db, id)
          return row ? toNode(row, localServes) : null
        },
        activeNodes: async (db = context.db) =>
          (await activeNodeRows(db)).map((row) => toNode(row, localServes)),
        send,
        call: (node, call, signal) => send(node, nodeCommand('call', call), signal),
        localReported: () => (localSettled ? Promise.resolve() : waitAtMost(localReported, 15_000)),
      })
    },
    jobs: (context) => [reconcileJob(context)],
    start(context) {
      const interval = options.reconcileIntervalMs ?? defaultReconcileIntervalMs
      const stopReconciling = interval > 0 ? reconcileSchedule(context, interval) : () => {}
      if (!localDriver) return async () => stopReconciling()
      const locators = context.extensionPoint(siteLocators)
      const locate = async (ids: readonly string[]) => {
        const found = new Map<string, LocatedSite>()
        for (const locator of locators.list())
          for (const [id, site] of await locator.locate(ids.filter((id) => !found.has(id))))
            found.set(id, site)
        return found
      }
      const reported = Promise.withResolvers<void>()
      localSettled = false
      localReported = reported.promise.then(() => {
        localSettled = true
      })
      const stopLocal = startLocalNode(context, localDriver, nodeVersion, locate, {
        onReported: reported.resolve,
        ...(options.localReportIntervalMs === undefined
          ? {}
          : { reportEveryMs: options.localReportIntervalMs }),
      })
      return async () => {
        stopReconciling()
        await stopLocal()
      }
    },
    // `/readyz` says whether the node the panel runs itself serves its sites (degraded, with why, when not).
    readinessChecks: (context) =>
      localDriver
        ? [
            {
              name: 'local-node',
              description: 'The local node (run in the panel’s process) serves its sites.',
              async check() {
                const rows = await localNodeRows(context.db)
                const reasons = rows.flatMap((row) => toNode(row, localServes).notReady)
                return { ready: reasons.length === 0, reasons }
              },
            },
          ]
        : [],
    routes: (context) => [
      ...nodeRoutes(context, localDriver !== null, localServes),
      ...metricsRoutes(context),
      ...reconcileRoutes(context),
      ...agentRoutes(context, queue ?? createCommandQueue(context), () => modules()),
    ],
    capabilities: (context) => ({
      drivers: context
        .extensionPoint(nodeDrivers)
        .list()
        .map(({ name, description }) => ({ name, description })),
    }),
  })
}
