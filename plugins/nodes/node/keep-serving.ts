// A node's masters kept running: started at once, then, while the node is not ready for a reason another start can
// cure (the sites' port taken by another program, a master that would not start or stopped), started again every
// few seconds, so a node whose port frees up serves without a restart. Each change of its readiness is told (the
// panel's local node records it at once; the agent says it with its next poll).

import type { NodeReadiness } from './contract.ts'
import type { SiteRuntime } from './runtime/site-runtime.ts'

/** How often a node that is not ready tries to start its masters again. */
export const servingRetryMs = 5_000

/** Reasons another start may cure; a program missing is not one (`setup` installs it, and the node restarts). */
const curable = new Set(['port_taken', 'stack_failed', 'not_running'])

/** Options of {@link keepServing}. */
export interface KeepServingOptions {
  /** Called with the node's readiness when it changed (first: `previous` null), before anything else happens. */
  readonly changed: (readiness: NodeReadiness, previous: NodeReadiness | null) => void | Promise<void>
  /** Milliseconds between two attempts while the node is not ready. Default {@link servingRetryMs}. */
  readonly everyMs?: number
}

/** The masters kept running; `first` resolves once the first start was tried, with the readiness it left. */
export interface KeptServing {
  readonly first: Promise<NodeReadiness>
  stop(): Promise<void>
}

/** Starts `runtime`'s masters and keeps them running (see the file's comment). */
export function keepServing(runtime: SiteRuntime, options: KeepServingOptions): KeptServing {
  const everyMs = options.everyMs ?? servingRetryMs
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
  /** One attempt: start the masters when another start may help, then tell what came of it. */
  const attempt = async (always: boolean) => {
    const now = await runtime.readiness()
    // A failed start is told in the readiness; `start` also applies a reload left pending by a crash.
    if (always || (!now.ready && now.reasons.some((reason) => curable.has(reason.code))))
      await runtime.start().catch(() => {})
    const after = await runtime.readiness()
    await tell(after)
    return after
  }
  const schedule = () => {
    if (stopped) return
    timer = setTimeout(() => {
      running = attempt(false)
        .catch(() => {})
        .finally(schedule)
    }, everyMs)
    timer.unref?.()
  }
  const first = attempt(true)
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
