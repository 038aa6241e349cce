// The first thing a site's backups page says: how old its last good backup is, and a warning when that is older
// than its schedule allows (or there is none); a failed newest backup is named with its reason.

import { useQuery } from '@tanstack/react-query'
import { formatTime, Loading } from '../../console/kit.ts'
import { api } from './api.ts'
import { ageText, isOverdue, lastGoodBackup } from './backup-age.ts'

export function LastGoodBackup({ siteId, siteCreatedAt }: { siteId: string; siteCreatedAt: string }) {
  const backups = useQuery({
    ...api.query('/api/v1/sites/{id}/backups', { params: { path: { id: siteId }, query: { limit: 100 } } }),
    refetchInterval: (query) =>
      query.state.data?.items.some((backup) => backup.status === 'running') ? 3000 : false,
  })
  const policy = useQuery(api.query('/api/v1/sites/{id}/backup-policy', { params: { path: { id: siteId } } }))
  if (backups.isPending) return <Loading />
  const items = backups.data?.items ?? []
  const good = lastGoodBackup(items)
  const goodAt = good ? (good.finishedAt ?? good.createdAt) : null
  const schedule = policy.data?.schedule ?? 'off'
  const overdue = policy.data?.overdue ?? isOverdue(schedule, goodAt, siteCreatedAt)
  const newest = items[0]
  return (
    <div className="last-good-backup" data-testid="last-good-backup">
      <p className="last-good-age">
        {good ? (
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
          {good
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
