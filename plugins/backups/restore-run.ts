// What a restore (restore-job.ts) and a site copy (site-copies.ts) share: readwrite logins to the databases they
// load, and the node's restore task from the backup's repository into the site.

import { JobFailure, type JobRun, type PluginContext } from '../../core/index.ts'
import type { DatabaseBackupAccess, LeasedLogin, TemporaryLogin } from '../databases/contract.ts'
import type { Node, NodeDirectory } from '../nodes/contract.ts'
import { leaseRefusal } from './lease-refusal.ts'
import type { BackupsTable, BackupTargetsTable } from './migrations.ts'
import type { DumpTarget } from './node/protocol.ts'
import { type ProgressSpan, runOnNode } from './node-runs.ts'
import { siteRepository } from './site-repository.ts'

/** A readwrite login to `databaseId`, usable from `nodeId`, kept in `leases` (see `releaseLeases`); or the job's failure. */
export async function leaseForRestore(
  context: PluginContext,
  access: DatabaseBackupAccess,
  databaseId: string,
  nodeId: string | null,
  leases: LeasedLogin[],
): Promise<TemporaryLogin> {
  try {
    const lease = await access.lease(databaseId, 'readwrite', nodeId)
    leases.push(lease)
    return lease.login
  } catch (error) {
    throw new JobFailure(
      `The database ${databaseId} cannot be written now: ${leaseRefusal(context, databaseId, error)}`,
      'database_unavailable',
    )
  }
}

/** Gives the logins back, whatever the run's outcome. */
export async function releaseLeases(leases: readonly LeasedLogin[]): Promise<void> {
  await Promise.all(leases.map((lease) => lease.release().catch(() => {})))
}

/** What the node restores. */
export interface RestoreWork {
  readonly files: boolean | readonly string[]
  /** Paths the site keeps of its own (a clone's or copy's `wp-config.php`). */
  readonly keep: readonly string[]
  readonly databases: readonly DumpTarget[]
}

/**
 * Runs the node's restore task of `backup` (kept in `target`, in the repository of its site `from`) into the site
 * `intoSiteId` on `node`, its progress in `span`; the run's failure is the job's.
 */
export async function restoreOnNode(
  context: PluginContext,
  nodes: NodeDirectory,
  job: JobRun,
  backup: BackupsTable,
  target: BackupTargetsTable,
  from: { readonly id: string; readonly customerId: string },
  into: { readonly siteId: string; readonly node: Node },
  work: RestoreWork,
  span: ProgressSpan,
): Promise<void> {
  // A repository on a node's own disk is only reached there.
  if (target.kind === 'local' && backup.node_id !== into.node.id)
    throw new JobFailure(
      'The backup is in a repository on another node’s own disk (a local target): it can be restored only on that node.',
      'repository_unreachable',
    )
  const { spec } = await siteRepository(context, target, from, 'push')
  const outcome = await runOnNode(
    nodes,
    into.node,
    into.siteId,
    { task: 'restore', repository: spec, snapshotId: backup.snapshot_id ?? '', ...work },
    job,
    span,
  )
  if (!outcome.ok) throw new JobFailure(outcome.message, outcome.code)
}
