// A node: the site runtime and the node modules the installation's plugins declare (their services and site
// applications), the same in the panel's process (the local node) and in an agent. Modules are made once each, by
// name; services that keep something running start with the node, or when their module comes later.

import type {
  NodeCapabilities,
  NodeLack,
  NodeModule,
  NodeService,
  NodeServiceHost,
  SiteApplication,
} from './contract.ts'
import { type NodeCommand, type NodeOperationName, type NodeResult, runOperation } from './operations.ts'
import { createSiteRuntime } from './runtime/create-site-runtime.ts'
import { rotationFromEnv } from './runtime/log-rotation.ts'
import type { RuntimeSettings, SiteRuntime } from './runtime/site-runtime.ts'

/** A module as a node is given it: the module, and what the panel's plugin gave its local node (agents: none). */
export interface NodeModuleEntry {
  readonly module: NodeModule<never>
  readonly options?: unknown
}

/** A module that could not be made: its name and why, told to operators (in the node's `missing`). */
export interface ModuleFailure {
  readonly name: string
  readonly error: string
}

/** A node. */
export interface PlinthNode {
  readonly runtime: SiteRuntime
  /**
   * Makes the modules of `entries` it does not run yet (a name it runs is kept as it is); resolves with those it
   * added. A module that fails is left out and told in `capabilities().missing`, never fatal.
   */
  use(entries: readonly NodeModuleEntry[]): Promise<readonly string[]>
  /** What the node can run: the runtime's, the modules' services and applications, and what is missing. */
  capabilities(): Promise<NodeCapabilities>
  /** The modules that could not be made, by name, with why. */
  failures(): ReadonlyMap<string, string>
  /** Carries out a command on this node. */
  run<O extends NodeOperationName>(command: NodeCommand<O>, signal: AbortSignal): Promise<NodeResult<O>>
  /**
   * Starts what the services keep running (the SFTP server), now and for modules added later; resolves with how to
   * stop them all. A service that fails to start is logged and left out.
   */
  startServices(log: NodeServiceHost['log']): Promise<() => Promise<void>>
}

/** What {@link createNode} needs besides the runtime's settings. */
export interface NodeOptions extends Omit<RuntimeSettings, 'parts'> {
  /** The environment modules read their settings from (an agent's; the panel's for its local node). */
  readonly env: Readonly<Record<string, string | undefined>>
}

/** A node over `options.dataDir`, running no module yet. */
export function createNode(options: NodeOptions): PlinthNode {
  const services: NodeService[] = []
  const applications: SiteApplication[] = []
  const lacks: NodeLack[] = []
  const made = new Set<string>()
  const failures = new Map<string, string>()
  const runtime = createSiteRuntime({
    logRotation: rotationFromEnv(options.env),
    ...options,
    parts: () => ({ services, applications }),
  })
  const node = { runtime }
  let serving: { log: NodeServiceHost['log']; stops: (() => Promise<void>)[] } | null = null

  async function start(started: readonly NodeService[]): Promise<void> {
    if (!serving) return
    serving.stops.push(await runtime.startServices(serving.log, started))
  }

  return {
    runtime,
    async use(entries) {
      const added: string[] = []
      for (const { module, options: given } of entries) {
        if (made.has(module.name)) continue
        try {
          const parts = await module.create({ env: options.env }, given as never)
          services.push(...(parts.services ?? []))
          applications.push(...(parts.applications ?? []))
          lacks.push(...(parts.lacks ?? []))
          made.add(module.name)
          failures.delete(module.name)
          added.push(module.name)
          await start(parts.services ?? [])
        } catch (error) {
          failures.set(module.name, (error as Error).message)
        }
      }
      return added
    },
    async capabilities() {
      const capabilities = await runtime.capabilities()
      const broken = [...failures].map(([name, error]) => ({
        what: `the node module ${name} (${error})`,
        for: name,
        fix: 'update the node’s install to the panel’s version (git pull && npm ci), then restart it',
      }))
      const failing = services.flatMap((service) => service.lacks?.() ?? [])
      return { ...capabilities, missing: [...capabilities.missing, ...lacks, ...failing, ...broken] }
    },
    failures: () => failures,
    run: (command, signal) => runOperation(node, command, signal),
    async startServices(log) {
      serving = { log, stops: [] }
      // The masters are watched while the node serves: killed, they are started again (their leftovers ended).
      const unwatch = runtime.watch(log)
      await start(services)
      const current = serving
      return async () => {
        unwatch()
        for (const stop of current.stops.reverse()) await stop()
      }
    },
  }
}
