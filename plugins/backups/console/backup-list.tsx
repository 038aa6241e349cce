// A site's backups, newest first: when each was taken and why, whether it completed and was verified, its size and
// what it added to the repository, what it holds (or why it failed); a completed one restores and downloads, for
// those who may. Read again every few seconds while one is running.

import { CursorTable, formatBytes, formatTime, Link, useSession } from '../../console/kit.ts'
import { api, type Backup } from './api.ts'
import { BackupContents } from './backup-contents.tsx'
import { BackupStatus } from './backup-status.tsx'
import { DownloadBackup } from './download-backup.tsx'

const reasonText = { manual: 'Asked for', scheduled: 'Scheduled', 'pre-restore': 'Before a restore' } as const

export function BackupList({ siteId }: { siteId: string }) {
  const { can } = useSession()
  const manage = can('backup:manage')
  return (
    <CursorTable<Backup>
      list={api.list('/api/v1/sites/{id}/backups', { params: { path: { id: siteId } } })}
      caption="Backups"
      empty={
        manage
          ? 'No backup of this site yet. “Back up now” takes one; its schedule takes the next.'
          : 'No backup of this site yet.'
      }
      refreshMs={(backups) => (backups.some((backup) => backup.status === 'running') ? 3000 : false)}
      columns={[
        { header: 'Taken', cell: (backup) => formatTime(backup.createdAt) },
        { header: 'Status', cell: (backup) => <BackupStatus status={backup.status} /> },
        { header: 'Reason', cell: (backup) => reasonText[backup.reason] ?? backup.reason },
        { header: 'Verified', cell: (backup) => (backup.verified ? 'Yes' : 'No') },
        { header: 'Size', cell: (backup) => formatBytes(backup.sizeBytes) },
        { header: 'Stored', cell: (backup) => formatBytes(backup.storedBytes) },
        { header: 'Contents', cell: (backup) => <BackupContents backup={backup} /> },
        {
          header: 'Actions',
          cell: (backup) =>
            manage && backup.status === 'completed' ? (
              <div className="row-actions">
                <Link
                  className="button secondary"
                  to={`/sites/${encodeURIComponent(siteId)}/backups/${encodeURIComponent(backup.id)}/restore`}
                >
                  Restore<span className="visually-hidden"> backup of {formatTime(backup.createdAt)}</span>
                </Link>
                <DownloadBackup backup={backup} />
              </div>
            ) : null,
        },
      ]}
    />
  )
}
