// A plugin's part of the panel's readiness (`/readyz`): something the installation relies on that can fail while the
// API still answers (a server the plugin runs beside the panel), declared by the plugin that owns it, so the kernel
// reports it without naming it.

/** Why something a plugin checks is not ready. */
export interface ReadinessReason {
  /** A stable code, snake_case: `port_taken`. */
  readonly code: string
  /** What is wrong, in words an operator acts on. */
  readonly message: string
}

/** What a check found: ready, or not with its reasons. */
export interface ReadinessOutcome {
  readonly ready: boolean
  /** Why not; empty when ready. */
  readonly reasons: readonly ReadinessReason[]
}

/**
 * One check a plugin contributes to `/readyz`, reported as `<plugin>.<name>`. A check that is not ready makes the
 * panel `degraded` (200, with the check's reasons), not unready: the API still serves, so load balancers keep it.
 * @example readinessChecks: (context) => [{ name: 'mail-relay', description: 'The mail relay answers.', check: () => relayReadiness(context) }]
 */
export interface ReadinessCheck {
  /** Unique within the plugin, lower-case with dashes: `mail-relay`. */
  readonly name: string
  readonly description: string
  /** Whether it is ready now; called at each `/readyz`, so keep it to a read. Throwing counts as not ready. */
  check(): Promise<ReadinessOutcome>
}
