// The backups plugin's refusals for sites' backups, restores and downloads (targets and policies declare their own).

import { defineProblems, limitReached } from '../../core/index.ts'

/** The backups plugin's problem codes, catalogued in docs/problem-codes.md. */
export const backupsProblems = defineProblems({
  backup_limit_reached: {
    ...limitReached('backupMB', 'MB of backup storage'),
    description:
      'The customer’s backups already take as much storage as its `backupMB` limit allows (its plans, or the installation’s defaults): no new backup is taken until retention or a larger plan makes room. `limit` and `used` (MB) say where it stands. A restore’s own pre-restore backup is never refused for it.',
  },
  backup_in_progress: {
    status: 409,
    detail: 'A backup or restore of the site is running: wait for its job to end.',
    description:
      'One backup or restore of a site runs at a time (its snapshot would otherwise race the other’s files). `jobId` names the running job.',
  },
  backup_not_completed: {
    status: 409,
    detail: 'The backup is not completed: only a completed, verified backup can be restored or downloaded.',
    description:
      'A `running` backup is still being taken and checked; a `failed` one holds nothing to trust. Use another backup of the site (`GET /sites/{id}/backups`).',
  },
  nothing_to_restore: {
    status: 422,
    detail: 'The restore names nothing to restore: set `files`, `databases` or both.',
    description:
      'A restore with neither `files` nor `databases` (or both `false`) would change nothing. `files: true` restores every file, `databases: true` every database of the backup.',
  },
  not_in_backup: {
    status: 422,
    detail: 'The backup does not hold what the restore names.',
    description:
      'A database id the backup has no dump of, or files asked of a backup without files. `errors[]` names each such item. A listed path the backup lacks is found on the node: the restore’s job fails with this code before anything changed.',
  },
  invalid_restore_path: {
    status: 422,
    detail:
      'A path to restore must be absolute within the site and inside `/htdocs` (what a restore replaces), without `..` segments or control characters.',
    description:
      'Paths are named as the files API names them (`/htdocs/wp-content/uploads`); a restore replaces the site’s documents only (`/htdocs` and what is in it: `files: true` is all of them), never its logs, temporary files or the runtime’s own.',
  },
  clone_type_unsupported: {
    status: 422,
    detail: 'No restore adapter says how to clone a site of this type.',
    description:
      'A restore into a new site needs the site type’s restore adapter (what the clone keeps of its own, where its databases go); this installation has none for the backup’s site type.',
  },
  download_link_invalid: {
    status: 404,
    detail: 'No such download link.',
    description: 'The link’s token is wrong, or its backup is gone. Ask for a new link.',
  },
  download_link_used: {
    status: 410,
    detail: 'The download link was used already or has expired.',
    description:
      'A download link works once, within 15 minutes of being made. Ask for a new one with `POST /sites/{id}/backups/{backupId}/download`.',
  },
  download_failed: {
    status: 502,
    detail: 'The site’s node could not make the archive.',
    description:
      'The node that holds or reaches the backup’s repository failed to write the archive (`reason` says why). The link stays unused: try again.',
  },
})
