// A node's readiness followed: its masters started at once, then its readiness read every couple of seconds (two pid
// files and /proc) and each change told: the panel's local node records it at once, the agent says it with its next
// poll. Starting the masters again when they stopped or could not start (the sites' port taken by another program,
// since freed) is the runtime's watch (`SiteRuntime.watch`, run while the node serves): this says what came of it.

import type { NodeReadiness } from './contract.ts'
import type { SiteRuntime } from './runtime/site-runtime.ts'

/** How often a node's readiness is read again. */
export const readinessEveryMs = 2_000

/** Options of {@link keepServing}. */
export interface KeepServingOptions {
  /** Called with the node's readiness when it changed (first: `previous` null), before anything else happens. */
  readonly changed: (readiness: NodeReadiness, previous: NodeReadiness | null) => void | Promise<void>
  /** Milliseconds between two readings. Default {@link readinessEveryMs}. */
  readonly everyMs?: number
}

/** The node's readiness followed; `first` resolves once the first start was tried, with the readiness it left. */
export interface KeptServing {
  readonly first: Promise<NodeReadiness>
  stop(): Promise<void>
}

/** Starts `runtime`'s masters and follows its readiness (see the file's comment). */
export function keepServing(runtime: SiteRuntime, options: KeepServingOptions): KeptServing {
  const everyMs = options.everyMs ?? readinessEveryMs
  let previous: NodeReadiness | null = null
  let stopped = false
  let timer: ReturnType<typeof setTimeout> | undefined
  let running: Promise<unknown> = Promise.resolve()

  /** Tells a readiness that differs from the last one told. */
  const tell = async (readiness: NodeReadiness) => {
    if (previous && JSON.stringify(previous) === JSON.stringify(readiness)) return
    const before = previous
    previous = readiness
    await options.changed(readiness, before)
  }
  const read = async () => {
    const now = await runtime.readiness()
    await tell(now)
    return now
  }
  const schedule = () => {
    if (stopped) return
    timer = setTimeout(() => {
      running = read()
        .catch(() => {})
        .finally(schedule)
    }, everyMs)
    timer.unref?.()
  }
  // A failed start is told in the readiness; `start` also applies a reload left pending by a crash.
  const first = runtime
    .start()
    .catch(() => {})
    .then(read)
  running = first.catch(() => {})
  void running.finally(schedule)
  return {
    first,
    async stop() {
      stopped = true
      clearTimeout(timer)
      await running
    },
  }
}
