// A site's backups: take one (`POST /sites/{id}/backups`, a job), list them newest first, read one.

import {
  defineRoute,
  kernelProblems,
  orNotFound,
  type PluginContext,
  Problem,
  Reply,
  type RouteDefinition,
  recorded,
  resourceRoutes,
  t,
} from '../../../core/index.ts'
import { nodeDirectory, nodeUnavailable, requireReachableNode } from '../../nodes/contract.ts'
import { runningSiteProblems, type SiteRef, siteDirectory } from '../../sites/contract.ts'
import { requestBackup } from '../backup-requests.ts'
import { Backup, backupScopes } from '../contract.ts'
import type { BackupsTable } from '../migrations.ts'
import { backupsProblems } from '../problems.ts'
import { findBackup, listedBackups, toBackup } from '../repository.ts'

/** The answer of `POST /sites/{id}/backups`. */
export const BackupAccepted = t.Object(
  {
    jobId: t.String({ description: 'The `backup.take` job: follow it for progress (`GET /jobs/{id}`).' }),
    backup: Backup,
  },
  { $id: 'BackupAccepted' },
)

/** The refusal of work on a site that is neither active nor suspended (provisioning, failed, deleting). */
export const siteNotReady = runningSiteProblems.find((problem) => problem.code === 'site_not_ready')

/**
 * Refuses a backup of a site that holds nothing to back up yet or any more (409 `site_not_ready`, with its
 * `siteStatus`); a suspended site is backed up (its files and databases are there, untouched).
 */
export function requireBackedUpSite(site: SiteRef): void {
  if (site.status === 'active' || site.status === 'suspended') return
  if (siteNotReady) throw new Problem(siteNotReady, { extensions: { siteStatus: site.status } })
}

/** The routes of a site's backups. */
export function backupRoutes(context: PluginContext): RouteDefinition[] {
  const sites = context.use(siteDirectory)
  const nodes = context.use(nodeDirectory)
  return [
    defineRoute({
      method: 'POST',
      path: '/sites/:id/backups',
      operationId: 'createBackup',
      summary: 'Back up a site',
      description:
        'Starts a backup of the site (its files, a consistent dump of each of its databases, and the panel’s record of it) into its repository on its target, as a `backup.take` job (`jobId`, with progress). The backup is `running` until restic’s check, a test restore of every dump and sampled files compared by checksum all passed (`completed`, `verified`), or `failed` with a code (`backup.completed`, `backup.failed`). One backup or restore of a site runs at a time (409 `backup_in_progress`). The site must be active or suspended (409 `site_not_ready`) and its node reachable (503 `node_unavailable`); the customer’s backups must have room under its `backupMB` limit (422 `backup_limit_reached`) and one of its subscriptions must be active (422 `customer_suspended`). It goes to the target staff chose for the site, else the default one (a fresh installation’s is each site’s own node).',
      scope: backupScopes.manage,
      params: { id: 'site' },
      idempotent: true,
      responses: {
        202: {
          description: 'The backup, `running`, and its job.',
          schema: BackupAccepted,
          headers: { Location: 'URL of the backup: read it for its `status`.' },
        },
      },
      problems: [
        ...(siteNotReady ? [siteNotReady] : []),
        nodeUnavailable,
        backupsProblems.backup_in_progress,
        backupsProblems.backup_limit_reached,
        kernelProblems.customer_suspended,
      ],
      change: {
        action: 'backup.create',
        subject: (answer) => ({ type: 'backup', id: (answer.backup as Backup).id }),
        details: (answer) => ({
          siteId: (answer.backup as Backup).siteId,
          reason: 'manual',
          jobId: answer.jobId,
        }),
      },
      async handler({ trx, params, view, enqueueJob }) {
        const site = orNotFound(await sites.find(trx, view, params.id))
        requireBackedUpSite(site)
        requireReachableNode(site.nodeId ? await nodes.find(site.nodeId, trx) : null)
        const { backup, jobId } = await requestBackup(
          context,
          trx,
          { site, reason: 'manual' },
          { enqueueJob, audit: null },
        )
        const location = `/sites/${site.id}/backups/${backup.id}`
        return recorded(new Reply(202, { jobId, backup }, {}, location), { customerId: site.customerId })
      },
    }),
    ...resourceRoutes({
      item: Backup,
      name: 'backup',
      path: '/sites/:id/backups',
      params: { id: 'site' },
      key: { backupId: 'bkp' },
      scopes: { read: backupScopes.read, manage: backupScopes.manage },
      parent: (db, view, params) => sites.find(db, view, params.id),
      list: {
        summary: 'List a site’s backups',
        description:
          'The site’s backups, newest first: running, completed and failed ones; those retention forgot are no longer listed.',
        order: 'desc',
        toItem: (row: BackupsTable) => toBackup(row),
        handler: ({ db, parent }) => listedBackups(db, parent.id),
      },
      read: {
        summary: 'Read a backup',
        responses: { 200: Backup },
        handler: async ({ db, parent, params }) =>
          toBackup(orNotFound(await findBackup(db, parent.id, params.backupId))),
      },
    }),
  ]
}
