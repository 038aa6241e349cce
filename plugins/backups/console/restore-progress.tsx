// A restore under way: its job followed live, then the backup taken before it, with "Undo this restore", which
// restores that backup's same parts into the site (and is itself a restore with its own pre-restore backup, so an
// undo can be undone too). A restore into a new site links the new site once its job names it.

import { useState } from 'react'
import { ActionError, JobProgress, Link, unwrap, useAction } from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { undoBody } from './restore-choice.ts'

type Started = Schemas['RestoreAccepted']
type RestoreRequest = Schemas['RestoreRequest']

export function RestoreProgress({
  siteId,
  started,
  body,
  undoing = false,
}: {
  siteId: string
  started: Started
  body: RestoreRequest
  undoing?: boolean
}) {
  const [finished, setFinished] = useState<string | null>(null)
  const [undo, setUndo] = useState<Started | null>(null)
  const preRestore = started.preRestoreBackupId ?? null
  const undoAction = useAction(
    () =>
      unwrap(
        api.POST('/api/v1/sites/{id}/backups/{backupId}/restore', {
          params: { path: { id: siteId, backupId: preRestore as string } },
          body: undoBody(body),
        }),
      ),
    (answer) => setUndo(answer),
  )
  return (
    <div className="restore-progress" data-testid={undoing ? 'undo-progress' : 'restore-progress'}>
      <h3>{undoing ? 'Undoing the restore' : 'Restoring'}</h3>
      <JobProgress jobId={started.jobId} onFinished={(job) => setFinished(job.status)} />
      {finished === 'succeeded' ? (
        <p role="status">
          {undoing ? 'The restore is undone.' : 'Restored.'}{' '}
          {started.siteId !== siteId ? (
            <Link to={`/sites/${encodeURIComponent(started.siteId)}`}>Open the new site</Link>
          ) : null}
        </p>
      ) : null}
      {preRestore ? (
        <div className="pre-restore" data-testid="pre-restore">
          <p>
            What it replaced was backed up first: backup <code>{preRestore}</code>, listed under Backups as
            “Before a restore”.
          </p>
          {undo ? null : (
            <button
              type="button"
              className="button secondary"
              disabled={!finished || undoAction.isPending}
              onClick={() => undoAction.mutate(undefined)}
            >
              {undoing ? 'Undo this undo' : 'Undo this restore'}
            </button>
          )}
          <ActionError action={undoAction} />
        </div>
      ) : null}
      {undo ? <RestoreProgress siteId={siteId} started={undo} body={undoBody(body)} undoing /> : null}
    </div>
  )
}
