// The call that undoes a restore into a site, as its job's result names it: the same parts restored again from the
// pre-restore backup taken just before it, and only those.

/** The `undo` of a restore's result: a `POST` of the restore route; null for a clone (nothing was replaced). */
export interface UndoCall {
  readonly method: 'POST'
  readonly path: string
  readonly body: {
    readonly files: boolean | readonly string[]
    readonly databases: false | readonly string[]
  }
}

/**
 * The undo of a restore of `files` and `databases` (the ids it loaded) into `siteId`. The databases are named, never
 * `true`: the pre-restore backup holds a dump of every database of the site, and restoring them all would put those
 * the restore never touched back as they were when it began, losing what was written to them since.
 */
export function undoCall(
  siteId: string,
  preRestoreBackupId: string | null,
  files: boolean | readonly string[],
  databases: readonly string[],
): UndoCall | null {
  if (preRestoreBackupId === null) return null
  return {
    method: 'POST',
    path: `/api/v1/sites/${siteId}/backups/${preRestoreBackupId}/restore`,
    body: { files, databases: databases.length > 0 ? [...databases] : false },
  }
}
