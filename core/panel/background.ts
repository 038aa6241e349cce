// The panel's background work: the job registry and workers, the outbox dispatcher, and every plugin's `start`.

import { createDispatcher, type DispatcherOptions, defaultDispatcherOptions } from '../events/dispatcher.ts'
import type { EventConsumer } from '../events/event-consumer.ts'
import { cancelJob } from '../jobs/job-cancel.ts'
import { type JobRequest, laneOf } from '../jobs/job-definition.ts'
import { insertJob, type JobRequester } from '../jobs/job-queue.ts'
import {
  createJobRunner,
  defaultJobRunnerOptions,
  defaultMaxAttempts,
  type JobRunnerOptions,
  type RegisteredJob,
} from '../jobs/job-runner.ts'
import type { BackgroundTask, Logger, PluginContext, PluginDefinition } from '../plugin/define-plugin.ts'
import { PluginResolutionError } from '../plugin/plugin-resolution-error.ts'
import type { Store, Trx } from '../store/store.ts'
import type { PanelMetrics } from './metrics.ts'

/** How the background work runs: the job workers and the outbox dispatcher. */
export interface BackgroundOptions {
  readonly jobs?: Partial<JobRunnerOptions>
  readonly events?: Partial<DispatcherOptions>
}

/** The background work of one panel. The registry is filled by {@link Background.registerJobs} after setup. */
export function createBackground(
  store: Store,
  consumers: readonly EventConsumer[],
  options: BackgroundOptions,
  observability: { readonly log: Logger; readonly metrics: PanelMetrics },
) {
  const { log, metrics } = observability
  const registry = new Map<string, RegisteredJob>()
  const dispatcher = createDispatcher(
    store,
    consumers,
    { ...defaultDispatcherOptions, ...options.events },
    log.child({ component: 'events' }),
  )
  const runner = createJobRunner(
    store,
    registry,
    { ...defaultJobRunnerOptions, ...options.jobs },
    {
      finished: () => dispatcher.nudge(),
      ran: (kind, outcome, seconds) => metrics.jobRan(kind, outcome, seconds),
      log: log.child({ component: 'jobs' }),
    },
  )
  const tasks: BackgroundTask[] = []
  let started = false

  return {
    /** Every job kind, by kind. */
    registry: registry as ReadonlyMap<string, RegisteredJob>,

    /** Reads each plugin's job kinds (once the panel is set up); a kind declared twice fails start-up. */
    registerJobs(plugins: readonly PluginDefinition[], contextFor: (plugin: string) => PluginContext): void {
      for (const plugin of plugins) {
        const eventKinds = new Set((plugin.events ?? []).map((event) => event.kind))
        for (const definition of plugin.jobs?.(contextFor(plugin.name)) ?? []) {
          const existing = registry.get(definition.kind)
          if (existing)
            throw new PluginResolutionError(
              `Job kind "${definition.kind}" is declared by both "${existing.plugin}" and "${plugin.name}"`,
            )
          registry.set(definition.kind, { definition, plugin: plugin.name, eventKinds })
        }
      }
    },

    /** Starts a job in `trx`; the kernel's one way in, for routes (with the caller) and plugins (as the system). */
    async enqueueJob(trx: Trx, job: JobRequest, requester: JobRequester): Promise<string> {
      const registered = registry.get(job.kind)
      if (!registered) throw new Error(`No plugin runs jobs of kind "${job.kind}"`)
      const maxAttempts = registered.definition.maxAttempts ?? defaultMaxAttempts
      return insertJob(trx, job, {
        maxAttempts,
        requester,
        now: new Date(),
        lane: laneOf(registered.definition),
        urgent: registered.definition.priority === 'urgent',
      })
    },

    /** Cancels a job in `trx` (queued: at once; running: its worker is told as `trx` commits). */
    cancelJob: (trx: Trx, id: string) => cancelJob(trx, store, registry, id),

    /** After a change committed: wake the workers and the dispatcher for what it started. */
    committed(work: { readonly jobs: boolean; readonly events: boolean }): void {
      if (work.jobs) runner.nudge()
      if (work.events) dispatcher.nudge()
    },

    nudgeDispatcher: () => dispatcher.nudge(),

    /** Starts the workers, the dispatcher and every plugin's `start`. Idempotent. */
    start(plugins: readonly PluginDefinition[], contextFor: (plugin: string) => PluginContext): void {
      if (started) return
      started = true
      runner.start()
      dispatcher.start()
      for (const plugin of plugins) {
        const stop = plugin.start?.(contextFor(plugin.name))
        if (stop) tasks.push(stop)
      }
    },

    /**
     * Stops plugins first (they may deliver what the dispatcher hands over), then the dispatcher; the workers
     * meanwhile, at once, so the jobs under way are given back without waiting on a delivery's grace.
     */
    async stop(): Promise<void> {
      const workers = runner.stop()
      for (const stop of tasks.splice(0).reverse()) await stop()
      await dispatcher.stop()
      await workers
    },
  }
}

/** The background work of a panel. */
export type Background = ReturnType<typeof createBackground>
