// The first thing a site's backups page says: how old its last good backup is, and a warning when that is older
// than its schedule allows (or there is none); a failed newest backup is named with its reason.

import { useQuery } from '@tanstack/react-query'
import { formatTime, Loading } from '../../console/kit.ts'
import { api } from './api.ts'
import { ageText, lastGoodBackup } from './backup-age.ts'

export function LastGoodBackup({ siteId }: { siteId: string }) {
  const backups = useQuery({
    ...api.query('/api/v1/sites/{id}/backups', { params: { path: { id: siteId }, query: { limit: 100 } } }),
    refetchInterval: (query) =>
      query.state.data?.items.some((backup) => backup.status === 'running') ? 3000 : false,
  })
  const policy = useQuery(api.query('/api/v1/sites/{id}/backup-policy', { params: { path: { id: siteId } } }))
  if (backups.isPending) return <Loading />
  const items = backups.data?.items ?? []
  // The policy says when the last good backup finished (whatever page of the list it is on); the list is read
  // again sooner after a backup completes, so the newer of the two is shown.
  const listed = lastGoodBackup(items)
  const goodAt = newer(
    policy.data?.lastGoodBackupAt ?? null,
    listed ? (listed.finishedAt ?? listed.createdAt) : null,
  )
  const schedule = policy.data?.schedule.value ?? 'off'
  const overdue = policy.data?.overdue ?? false
  const newest = items[0]
  return (
    <div className="last-good-backup" data-testid="last-good-backup">
      <p className="last-good-age">
        {goodAt ? (
          <>
            Last good backup: <strong>{ageText(goodAt as string)}</strong>{' '}
            <span className="muted">({formatTime(goodAt)}, verified)</span>
          </>
        ) : (
          <strong>No good backup yet.</strong>
        )}
      </p>
      {overdue ? (
        <p className="notice notice-error" role="alert">
          {goodAt
            ? `Overdue: its schedule (${schedule}) asks for a newer backup than that.`
            : `Overdue: its schedule (${schedule}) asked for a backup and none has completed.`}
        </p>
      ) : null}
      {newest?.status === 'failed' ? (
        <p className="notice notice-error" role="status">
          The newest backup ({formatTime(newest.createdAt)}) failed:{' '}
          {newest.error ? (
            <>
              {newest.error.message} (<code>{newest.error.code}</code>)
            </>
          ) : (
            'no reason was given'
          )}
          .
        </p>
      ) : null}
    </div>
  )
}

/** The later of two times, either of which may be missing. */
function newer(a: string | null, b: string | null): string | null {
  if (a === null || b === null) return a ?? b
  return Date.parse(a) >= Date.parse(b) ? a : b
}
