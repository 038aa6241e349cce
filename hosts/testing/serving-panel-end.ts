// The end of a test whose panel served sites on its local node: the sites deleted through the API (their node's
// side goes with them: users, groups, filesystems), the panel closed, then whatever a failed test still left on the
// machine removed, and the test's folders with it. Run from `afterAll`: a deletion that did not finish fails the test,
// but only once everything else is removed.

import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { waitFor } from '../../core/testing/async.ts'
import type { TestPanel } from '../../core/testing/create-test-panel.ts'
import { removeNodeLeftovers } from './node-leftovers.ts'

export interface ServingPanelEnd {
  /** A token that may delete the sites. */
  readonly token: string | undefined
  /** The sites made (undefined: one a failed setup never made). */
  readonly siteIds: readonly (string | undefined)[]
  /** The local node's data directory (its `sites/<id>` homes). */
  readonly nodeDir: string
  /** Folders removed at the end (the node's data directory's among them, or above it). */
  readonly remove: readonly string[]
}

/**
 * Deletes the sites, waits (30 s at most) until their homes have left `nodeDir`, closes the panel, removes the
 * node's leftovers (its nginx and PHP-FPM outlive the panel, as a node's do) and the folders; then throws if a
 * site's home was still there.
 */
export async function endServingPanel(tp: TestPanel | undefined, end: ServingPanelEnd): Promise<void> {
  const ids = end.siteIds.filter((id): id is string => id !== undefined)
  try {
    if (tp && end.token)
      for (const id of ids)
        await tp.request('DELETE', `/api/v1/sites/${id}`, { token: end.token }).catch(() => {})
    await waitFor(
      'the sites’ homes gone',
      async () => {
        const left = ids.filter((id) => existsSync(join(end.nodeDir, 'sites', id)))
        if (left.length > 0) await Bun.sleep(100)
        return left.length === 0
      },
      30_000,
    )
  } finally {
    await tp?.panel.close()
    removeNodeLeftovers(end.nodeDir)
    for (const folder of end.remove) rmSync(folder, { recursive: true, force: true })
  }
}
