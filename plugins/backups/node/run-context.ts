// What a task gets from the run it is carried out in: the service's folder, the run's process groups (a cancel kills
// them), its abort signal, and a way to say how far it got.

import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { ProcessGroups } from './processes.ts'

/** A run as its task sees it. */
export interface RunContext {
  readonly runId: string
  /** The service's own folder (root's): repositories, cache, staging, scratch, archives. */
  readonly dataDir: string
  readonly groups: ProcessGroups
  readonly signal: AbortSignal
  /** Says where the run is: `progress` 0 to 100, `step` in words. */
  report(progress: number, step: string): void
}

/**
 * A folder of root's (0700) for this run under `<dataDir>/<kind>/` (`staging`, `scratch`), named `name` (default the
 * run's id), removed by `release` whatever happened.
 */
export async function runFolder(context: RunContext, kind: 'staging' | 'scratch', name = context.runId) {
  const parent = join(context.dataDir, kind)
  await mkdir(parent, { recursive: true, mode: 0o700 })
  const path = join(parent, name)
  await rm(path, { recursive: true, force: true })
  await mkdir(path, { mode: 0o700 })
  return { path, release: () => rm(path, { recursive: true, force: true }) }
}
