// POST /sites/{id}/backups/{backupId}/restore: a completed backup restored, in part or whole, into its site (after a
// pre-restore backup that undoes it) or into a new site of the same customer and type (a clone).

import {
  customerInView,
  defineRoute,
  FieldErrors,
  kernelProblems,
  orNotFound,
  type PluginContext,
  Problem,
  type RouteDefinition,
  recorded,
  t,
} from '../../../core/index.ts'
import { nodeDirectory, nodeUnavailable, requireReachableNode } from '../../nodes/contract.ts'
import {
  requireRunningSite,
  runningSiteProblems,
  siteCreation,
  siteCreationProblems,
  siteDirectory,
  siteScopes,
} from '../../sites/contract.ts'
import { requestBackup, siteBusyWith } from '../backup-requests.ts'
import { type BackupContents, backupScopes, RestoreRequest, restoreAdapters } from '../contract.ts'
import { restorableRoots, within } from '../node/site-paths.ts'
import { backupsProblems } from '../problems.ts'
import { findBackup } from '../repository.ts'
import { type RestoreInput, restoreJobKind } from '../restore-job.ts'

/** The answer of a restore. */
export const RestoreAccepted = t.Object(
  {
    jobId: t.String({
      description:
        'The `backup.restore` job: its `result` names `preRestoreBackupId` and the `undo` call once it succeeded.',
    }),
    preRestoreBackupId: t.Union([t.String(), t.Null()], {
      description:
        'The backup of what the restore replaces, taken first by the job: restore it (with the same `files` and `databases`) to undo this restore. Null for a clone.',
    }),
    siteId: t.String({ description: 'The site restored into: the backup’s own, or the new one (`site_…`).' }),
    backupId: t.String({ description: 'The backup restored.' }),
  },
  { $id: 'RestoreAccepted' },
)

/**
 * A path as the files API names it, absolute within the site and among what a restore replaces (`/htdocs/…`); null
 * when it is not one. The node refuses the others too, but only after the restore's pre-restore backup was taken:
 * refused here, nothing is started (nor stored) for a restore that cannot happen.
 */
export function restorePath(path: string): string | null {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (!path.startsWith('/') || /[\u0000-\u001f\u007f]/.test(path)) return null
  const segments = path.split('/').filter((segment) => segment !== '' && segment !== '.')
  if (segments.some((segment) => segment === '..') || segments.length === 0) return null
  const normal = `/${segments.join('/')}`
  return restorableRoots.some((root) => within(root, normal)) ? normal : null
}

/**
 * Runs the site creation of a clone, its refusals located at this request's fields: the creation names `POST
 * /sites`'s (`body.domain`), which are `body.into.newSite.domain` here.
 */
async function atNewSiteFields<T>(create: () => Promise<T>): Promise<T> {
  try {
    return await create()
  } catch (error) {
    if (!(error instanceof Problem) || !error.errors) throw error
    const ref = siteCreationProblems.find((problem) => problem.code === error.code)
    if (!ref) throw error
    const errors = error.errors.map((item) => ({
      ...item,
      location: item.location.startsWith('body.')
        ? `body.into.newSite.${item.location.slice('body.'.length)}`
        : item.location,
    }))
    throw new Problem(ref, {
      detail: error.detail,
      errors,
      extensions: error.extensions,
      headers: error.headers,
    })
  }
}

/** The restore route. */
export function restoreRoutes(context: PluginContext): RouteDefinition[] {
  const sites = context.use(siteDirectory)
  const nodes = context.use(nodeDirectory)
  const creation = context.use(siteCreation)
  const adapters = context.extensionPoint(restoreAdapters)

  /** The request's files and databases checked against what the backup holds. */
  function checkedSelection(body: RestoreRequest, contents: BackupContents | null) {
    const refusals = new FieldErrors()
    const files = body.files ?? false
    const databases = body.databases ?? false
    if (files === false && databases === false) throw new Problem(backupsProblems.nothing_to_restore)
    let paths: boolean | string[] = files
    if (Array.isArray(files)) {
      paths = []
      files.forEach((path, index) => {
        const normal = restorePath(path)
        if (normal === null) refusals.add(backupsProblems.invalid_restore_path, `body.files[${index}]`)
        else (paths as string[]).push(normal)
      })
    }
    if (files !== false && !contents?.files)
      refusals.add(backupsProblems.not_in_backup, 'body.files', 'The backup holds no files.')
    const held = new Set((contents?.databases ?? []).map((db) => db.databaseId))
    if (Array.isArray(databases))
      databases.forEach((id, index) => {
        if (!held.has(id))
          refusals.add(
            backupsProblems.not_in_backup,
            `body.databases[${index}]`,
            `The backup has no dump of ${id}.`,
          )
      })
    if (refusals.hasAny()) throw refusals.toProblem()
    return { files: paths, databases }
  }

  return [
    defineRoute({
      method: 'POST',
      path: '/sites/:id/backups/:backupId/restore',
      operationId: 'restoreBackup',
      summary: 'Restore a backup',
      description:
        'Restores a completed backup as a `backup.restore` job: `files` (`true`: the site’s files become exactly the backup’s; a list of paths: each of them does) and/or `databases` (`true`: every dump in the backup; a list of database ids), into the backup’s own site or, with `into.newSite`, into a new site of the same customer and type (a clone: created as `POST /sites` creates one, with its checks and limits, which needs `site:create` too; once it is provisioned the backup’s files are restored into it but what its type keeps of its own, e.g. WordPress’s `wp-config.php`, and its databases’ dumps into the clone’s). A restore into the site first takes a `pre-restore` backup of it (`preRestoreBackupId`): restoring that one, with the same `files` and `databases`, undoes the restore; the job’s result says so as `undo`. One backup or restore of a site runs at a time (409 `backup_in_progress`). A suspended site is not restored into (409 `site_suspended`, as the files API refuses it), though a clone of it may be made. Paths to restore are within `/htdocs` (422 `invalid_restore_path` otherwise).',
      scope: backupScopes.manage,
      params: { id: 'site', backupId: 'bkp' },
      body: RestoreRequest,
      idempotent: true,
      responses: { 202: { description: 'The restore started: follow its job.', schema: RestoreAccepted } },
      problems: [
        backupsProblems.nothing_to_restore,
        backupsProblems.not_in_backup,
        backupsProblems.invalid_restore_path,
        backupsProblems.backup_not_completed,
        backupsProblems.backup_in_progress,
        backupsProblems.clone_type_unsupported,
        ...siteCreationProblems,
        ...runningSiteProblems,
        nodeUnavailable,
        kernelProblems.insufficient_scope,
      ],
      change: {
        action: 'backup.restore',
        subject: (answer) => ({ type: 'backup', id: String(answer.backupId) }),
        details: ({ backupId: _backupId, ...details }) => details,
      },
      async handler({ trx, params, body, view, caller, enqueueJob, audit }) {
        const site = orNotFound(await sites.find(trx, view, params.id))
        const backup = orNotFound(await findBackup(trx, site.id, params.backupId))
        const newSite = body.into?.newSite
        if (newSite && !adapters.get(site.type)) throw new Problem(backupsProblems.clone_type_unsupported)
        if (backup.status !== 'completed') throw new Problem(backupsProblems.backup_not_completed)
        const contents = backup.contents_json ? (JSON.parse(backup.contents_json) as BackupContents) : null
        const { files, databases } = checkedSelection(body, contents)
        if (newSite) {
          if (!(await customerInView(trx, caller.viewFor(siteScopes.create), site.customerId)))
            throw new Problem(kernelProblems.insufficient_scope, {
              detail: 'A restore into a new site creates one: it needs `site:create` too.',
              extensions: { scope: siteScopes.create },
            })
          const clone = await atNewSiteFields(() =>
            creation.create(
              trx,
              caller,
              {
                customerId: site.customerId,
                type: site.type,
                domain: newSite.domain,
                ...(newSite.nodeId === undefined ? {} : { nodeId: newSite.nodeId }),
                details: { clonedFrom: site.id, backupId: backup.id },
              },
              { enqueueJob, audit },
            ),
          )
          const input: RestoreInput = {
            backupId: backup.id,
            siteId: site.id,
            files,
            databases,
            cloneSiteId: clone.id,
          }
          const jobId = await enqueueJob(trx, {
            kind: restoreJobKind,
            customerId: site.customerId,
            subject: { type: 'site', id: clone.id },
            input: { ...input },
          })
          return recorded(
            { jobId, preRestoreBackupId: null, siteId: clone.id, backupId: backup.id },
            { customerId: site.customerId },
          )
        }
        // Like the files API: staff froze a suspended site (abuse, an investigation), and its customer's restore
        // would rewrite what they froze. A clone of it, as a download of its backup, is the customer's data.
        requireRunningSite(site)
        requireReachableNode(site.nodeId ? await nodes.find(site.nodeId, trx) : null)
        const busy = await siteBusyWith(trx, site.id)
        if (busy !== null)
          throw new Problem(backupsProblems.backup_in_progress, { extensions: { jobId: busy } })
        const input: RestoreInput = {
          backupId: backup.id,
          siteId: site.id,
          files,
          databases,
          cloneSiteId: null,
        }
        const jobId = await enqueueJob(trx, {
          kind: restoreJobKind,
          customerId: site.customerId,
          subject: { type: 'site', id: site.id },
          input: { ...input },
        })
        const preRestore = await requestBackup(
          context,
          trx,
          { site, reason: 'pre-restore', restoreJobId: jobId },
          { enqueueJob, audit: null },
        )
        return recorded(
          { jobId, preRestoreBackupId: preRestore.backup.id, siteId: site.id, backupId: backup.id },
          { customerId: site.customerId },
        )
      },
    }),
  ]
}
