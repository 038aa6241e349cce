// The setup phase: gives each plugin its context, holds the panel's services and extension registries.

import type { StoredCredential } from '../auth/authenticate.ts'
import type { Caller } from '../auth/caller.ts'
import type { SecretBox } from '../crypto/secret-box.ts'
import type { EventConsumer, KnownEvent } from '../events/event-consumer.ts'
import type { JobRequest } from '../jobs/job-definition.ts'
import type { Quotas } from '../quotas/quotas.ts'
import type { Store, Trx } from '../store/store.ts'
import type { Tenancy } from '../tenancy/tenancy.ts'
import type { UsageCounters } from '../usage/usage-counters.ts'
import type { CancelledJob, Logger, PluginContext, PluginDefinition, PluginMetrics } from './define-plugin.ts'
import {
  createExtensionRegistry,
  type ExtensionPointRef,
  type ExtensionRegistry,
  inertExtensionRegistry,
} from './extension-point.ts'
import { PluginResolutionError } from './plugin-resolution-error.ts'
import type { AuditInput, EventInput } from './route.ts'
import type { ServiceRef } from './service.ts'

/**
 * What the kernel lends plugin contexts: jobs, events, the audit log, tenancy, usage, quotas, the secret box, the
 * logger and the metrics registry.
 */
export interface KernelFacilities {
  readonly secrets: SecretBox
  /** The kernel's own areas (`identity`, `jobs`, …): every plugin may reach what they own. */
  readonly kernelPlugins: ReadonlySet<string>
  knownEvents(): readonly KnownEvent[]
  enqueueJob(trx: Trx, job: JobRequest): Promise<string>
  cancelJob(trx: Trx, id: string): Promise<CancelledJob>
  audit(trx: Trx, entry: AuditInput): Promise<void>
  /** Writes an event to the outbox in `trx` (the kind is already checked against its plugin's). */
  writeEvent(trx: Trx, event: EventInput): Promise<void>
  readonly quotas: Quotas
  readonly tenancy: Tenancy
  /** The caller of a credential recorded earlier, or null once it no longer authenticates. */
  callerOf(credential: StoredCredential): Promise<Caller | null>
  /** The usage counters as `plugin` sees them (it adjusts only the metrics it declares). */
  usageFor(plugin: string): UsageCounters
  /** The panel's logger; each plugin's lines carry `plugin`. */
  readonly log: Logger
  /** The panel's metrics registry as `plugin` declares on it (a name declared twice names both plugins). */
  metricsFor(plugin: string): PluginMetrics
}

/** Services and extension points of one panel, and the contexts that reach them. */
export function createPluginRuntime(
  store: Store,
  plugins: readonly PluginDefinition[],
  kernel: KernelFacilities,
) {
  const consumers: EventConsumer[] = []
  let sealed = false
  const services = new Map<string, { implementation: unknown; providedBy: string }>()
  const registries = new Map<string, ReturnType<typeof createExtensionRegistry<unknown>>>()
  // What a plugin enhances it reaches as what it requires, when mounted.
  const requiresOf = new Map(
    plugins.map((plugin) => [plugin.name, new Set([...(plugin.requires ?? []), ...(plugin.enhances ?? [])])]),
  )
  const eventKindsOf = new Map(
    plugins.map((plugin) => [plugin.name, new Set((plugin.events ?? []).map((event) => event.kind))]),
  )
  for (const plugin of plugins) {
    for (const point of plugin.extensionPoints ?? []) registries.set(point.id, createExtensionRegistry(point))
  }

  /** A plugin may reach what the kernel offers, what it owns, and what the plugins it requires own. */
  function mayReach(plugin: string, owner: string): boolean {
    return (
      owner === 'kernel' ||
      kernel.kernelPlugins.has(owner) ||
      owner === plugin ||
      (requiresOf.get(plugin)?.has(owner) ?? false)
    )
  }

  /** Each plugin's logger and metrics, made once: contexts are made again for every phase (and capabilities). */
  const observability = new Map<string, { log: Logger; metrics: PluginMetrics }>()
  const observabilityOf = (plugin: string) => {
    let found = observability.get(plugin)
    if (!found) {
      found = { log: kernel.log.child({ plugin }), metrics: kernel.metricsFor(plugin) }
      observability.set(plugin, found)
    }
    return found
  }

  /** Who declares each event kind: `onEvent` may follow only its own plugin's, its requirements' and the kernel's. */
  const ownerOfEvent = (kind: string) => kernel.knownEvents().find((event) => event.kind === kind)?.owner

  function contextFor(plugin: string): PluginContext {
    const usage = kernel.usageFor(plugin)
    const { log, metrics } = observabilityOf(plugin)
    return {
      plugin,
      store,
      db: store.db,
      transaction: (work) => store.transaction(work),
      extensionPoint<T>(ref: ExtensionPointRef<T>) {
        const registry = registries.get(ref.id)
        // An enhanced plugin the installation leaves out (not a key of requiresOf): what is added to it goes nowhere.
        if (!registry && !requiresOf.has(ref.owner) && requiresOf.get(plugin)?.has(ref.owner))
          return inertExtensionRegistry<T>()
        if (!registry)
          throw new PluginResolutionError(
            `"${plugin}" uses extension point "${ref.id}", but "${ref.owner}" is not mounted`,
          )
        if (!mayReach(plugin, ref.owner)) {
          throw new PluginResolutionError(`"${plugin}" extends "${ref.id}" without requiring "${ref.owner}"`)
        }
        return registry.registry(plugin) as ExtensionRegistry<T>
      },
      provide<T>(ref: ServiceRef<T>, implementation: T) {
        if (ref.owner !== 'kernel' && ref.owner !== plugin) {
          throw new PluginResolutionError(`"${plugin}" provides "${ref.id}", which belongs to "${ref.owner}"`)
        }
        const existing = services.get(ref.id)
        if (existing) {
          throw new PluginResolutionError(
            `Service "${ref.id}" is provided by both "${existing.providedBy}" and "${plugin}"`,
          )
        }
        services.set(ref.id, { implementation, providedBy: plugin })
      },
      use<T>(ref: ServiceRef<T>): T {
        if (!mayReach(plugin, ref.owner)) {
          throw new PluginResolutionError(
            `"${plugin}" uses service "${ref.id}" without requiring "${ref.owner}"`,
          )
        }
        const service = services.get(ref.id)
        if (!service) throw new PluginResolutionError(`Service "${ref.id}" was never provided`)
        return service.implementation as T
      },
      consumeEvents(consumer) {
        if (sealed) throw new PluginResolutionError(`"${plugin}" registers an event consumer after setup`)
        consumers.push(consumer)
      },
      onEvent(kind, handler) {
        if (sealed) throw new PluginResolutionError(`"${plugin}" follows ${kind} after setup`)
        const owner = ownerOfEvent(kind)
        if (owner === undefined)
          throw new PluginResolutionError(`"${plugin}" follows ${kind}, which no plugin declares`)
        if (!mayReach(plugin, owner))
          throw new PluginResolutionError(`"${plugin}" follows ${kind} without requiring "${owner}"`)
        consumers.push({
          name: `${plugin}:${kind}`,
          receive: async (trx, event) => {
            if (event.kind === kind) await handler(trx, event)
          },
        })
      },
      knownEvents: () => kernel.knownEvents(),
      enqueueJob: (trx, job) => kernel.enqueueJob(trx, job),
      cancelJob: (trx, id) => kernel.cancelJob(trx, id),
      audit: (trx, entry) => kernel.audit(trx, entry),
      async emit(trx, event) {
        if (!eventKindsOf.get(plugin)?.has(event.kind))
          throw new Error(`Plugin "${plugin}" emitted undeclared event kind "${event.kind}"`)
        await kernel.writeEvent(trx, event)
      },
      tenancy: kernel.tenancy,
      callerOf: (credential) => kernel.callerOf(credential),
      usage,
      quotas: kernel.quotas,
      secrets: kernel.secrets,
      log,
      metrics,
    }
  }

  return {
    contextFor,
    /** A service for the kernel and hosts, or null when no plugin provides it. */
    service<T>(ref: ServiceRef<T>): T | null {
      return (services.get(ref.id)?.implementation as T | undefined) ?? null
    },
    /** Ends the setup phase: owners now read fixed lists. */
    seal() {
      sealed = true
      for (const registry of registries.values()) registry.seal()
    },
    /** The event consumers plugins registered during setup, in setup order. */
    consumers: consumers as readonly EventConsumer[],
  }
}
