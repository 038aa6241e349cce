// A site's restic repository on a target as a run needs it: where it is (with the credentials for pushing, or for
// pruning) and its password, the repository's row made on first use with a random password sealed at rest.

import { randomBytes } from 'node:crypto'
import { nowIso, type PluginContext } from '../../core/index.ts'
import type { RepositorySpec } from './contract.ts'
import type { BackupRepositoriesTable, BackupTargetsTable } from './migrations.ts'
import { insertRepository, repositoryOf } from './repository.ts'
import { locationFor } from './targets/repository-location.ts'

/** The site a repository is of. */
export interface RepositorySite {
  readonly id: string
  readonly customerId: string
}

/**
 * The site's repository on `target` (its row made now, with a new random password, when the site has none there
 * yet), reached with the target's `push` credentials (what nodes get) or its `prune` ones (the panel's own).
 */
export async function siteRepository(
  context: PluginContext,
  target: BackupTargetsTable,
  site: RepositorySite,
  use: 'push' | 'prune',
): Promise<{ readonly spec: RepositorySpec; readonly row: BackupRepositoriesTable }> {
  const row = await ensureRepositoryRow(context, target.id, site)
  const location = locationFor(target, context.secrets, site.id, use)
  return { spec: { location, password: context.secrets.open(row.password_sealed) }, row }
}

/** The repository's row, written with a new password when there is none; a concurrent writer's row wins. */
async function ensureRepositoryRow(
  context: PluginContext,
  targetId: string,
  site: RepositorySite,
): Promise<BackupRepositoriesTable> {
  const found = await repositoryOf(context.db, site.id, targetId)
  if (found) return found
  const row: BackupRepositoriesTable = {
    site_id: site.id,
    target_id: targetId,
    customer_id: site.customerId,
    // 256 bits: restic derives its key from it with scrypt; never shown, never on a customer's path.
    password_sealed: context.secrets.seal(randomBytes(32).toString('base64url')),
    stored_bytes: 0,
    created_at: nowIso(),
  }
  try {
    await context.transaction(async (trx) => {
      if (!(await repositoryOf(trx, site.id, targetId))) await insertRepository(trx, row)
    })
  } catch (error) {
    // Another run made it first (the primary key): take theirs.
    const theirs = await repositoryOf(context.db, site.id, targetId)
    if (theirs) return theirs
    throw error
  }
  return (await repositoryOf(context.db, site.id, targetId)) ?? row
}
