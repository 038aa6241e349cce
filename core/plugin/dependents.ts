// A parent's deletion, as plugins whose records hang on it declare it: the parent's owner makes an extension point
// of dependents; each dependent plugin says how many of its records keep the parent from going, and removes its
// records of the parent inside the parent's deletion job. The owner names none of them.

import type { JobRun } from '../jobs/job-definition.ts'
import { Problem } from '../problem/problem.ts'
import type { ProblemRef } from '../problem/problem-code.ts'
import type { Db, Trx } from '../store/store.ts'
import { defineExtensionPoint, type ExtensionPointRef, type ExtensionRegistry } from './extension-point.ts'

/** What one plugin's records of a parent do when the parent is to be deleted. */
export interface Dependent<Parent> {
  /** Whose records these are, unique among the parent's dependents: the dependent plugin's name, or `<plugin>.<what>`. */
  readonly name: string
  /**
   * How many of its records keep the parent from being deleted (a node's sites, a plan's subscriptions): while any
   * dependent counts more than 0 the owner refuses the deletion with 409 and a code of its own. Read through the
   * owner's `db` (its transaction, when it checks in one).
   */
  blocking?(db: Db, parent: Parent): Promise<number>
  /**
   * Removes its records of the parent, inside the parent's deletion job, before the parent itself goes: idempotent
   * (a job that crashed runs it again from the start), stopping at `run.signal` between steps, writing through
   * `run.transaction` (and `run.audit`, `run.emit` for what it records). What needs work on a node it starts as
   * jobs of its own or does here, step by step.
   */
  remove?(run: JobRun, parent: Parent): Promise<void>
  /**
   * For a parent deleted at once (in one transaction, no job: a node, a plan): removes its records of the parent
   * that do not block it (a node's own database server holding no database), in the owner's transaction, after
   * every `blocking` counted none. Store writes only; audit through the owner's writers if it records them.
   */
  detach?(trx: Trx, parent: Parent): Promise<void>
}

/**
 * Declares the dependents of a parent the declaring plugin owns, in its contract: an extension point (list it in
 * the owner's `extensionPoints`) that plugins requiring the owner fill in their `setup`.
 * @example export const siteDependents = defineDependents<SiteRef>({ id: 'sites.dependents', owner: 'sites', description: 'What goes with a site.' })
 * @example context.extensionPoint(siteDependents).add({ name: 'cron-jobs', remove: (run, site) => ... })
 */
export function defineDependents<Parent>(ref: {
  /** `<owner>.dependents`, or `<owner>.<parent>Dependents` for an owner of several kinds of parent. */
  readonly id: string
  readonly owner: string
  readonly description: string
}): ExtensionPointRef<Dependent<Parent>> {
  return defineExtensionPoint<Dependent<Parent>>({ ...ref, keyOf: (dependent) => dependent.name })
}

/** A dependent that keeps a parent from being deleted, and how many of its records do. */
export interface Blocker {
  readonly name: string
  readonly count: number
}

/**
 * The dependents that keep `parent` from being deleted, in the order they were added; none when it may go. The
 * owner refuses the deletion with them (409, its own code, `blockers` in the problem's extensions).
 * @example const blockers = await blockersOf(context.extensionPoint(nodeDependents), trx, node)
 */
export async function blockersOf<Parent>(
  registry: ExtensionRegistry<Dependent<Parent>>,
  db: Db,
  parent: Parent,
): Promise<Blocker[]> {
  const blockers: Blocker[] = []
  for (const dependent of registry.list()) {
    const count = dependent.blocking ? await dependent.blocking(db, parent) : 0
    if (count > 0) blockers.push({ name: dependent.name, count })
  }
  return blockers
}

/**
 * Refuses the deletion of `parent` with `problem` (409, the owner's code) while any dependent blocks it: the detail
 * names what and how many, and what to do (`remedy`; by default removing them), `blockers` in the problem's
 * extensions. Call it in the transaction that deletes.
 * @example await refuseWhileBlocked(context.extensionPoint(nodeDependents), trx, node, nodesProblems.node_in_use, 'The node')
 */
export async function refuseWhileBlocked<Parent>(
  registry: ExtensionRegistry<Dependent<Parent>>,
  db: Db,
  parent: Parent,
  problem: ProblemRef,
  what: string,
  remedy = 'remove them first',
): Promise<void> {
  const blockers = await blockersOf(registry, db, parent)
  if (blockers.length === 0) return
  const named = blockers.map(({ name, count }) => `${name} (${count})`).join(', ')
  throw new Problem(problem, {
    detail: `${what} is still in use by ${named}: ${remedy}.`,
    extensions: { blockers },
  })
}

/**
 * Lets every dependent remove its records of `parent` in the transaction that deletes it at once (its `detach`),
 * the plugins added last first. Call it after {@link refuseWhileBlocked}, in the same transaction.
 */
export async function detachDependents<Parent>(
  registry: ExtensionRegistry<Dependent<Parent>>,
  trx: Trx,
  parent: Parent,
): Promise<void> {
  for (const dependent of [...registry.list()].reverse()) await dependent.detach?.(trx, parent)
}

/**
 * Removes every dependent's records of `parent`, inside its deletion job: the plugins added last go first (they
 * were set up later, so they may depend on those before them). Stops at `run.signal`; each `remove` is idempotent,
 * so a job run again after a crash runs them all again.
 * @example await removeDependents(context.extensionPoint(siteDependents), run, site)
 */
export async function removeDependents<Parent>(
  registry: ExtensionRegistry<Dependent<Parent>>,
  run: JobRun,
  parent: Parent,
): Promise<void> {
  for (const dependent of [...registry.list()].reverse()) {
    run.signal.throwIfAborted()
    await dependent.remove?.(run, parent)
  }
}
