// What a backup holds, in a table cell: its files (count and bytes), each database with its tables, whether the
// site's record is in it; a failed backup's code and message instead, since it holds nothing to restore.

import { formatBytes, formatCount } from '../../console/kit.ts'
import type { Backup } from './api.ts'

export function BackupContents({ backup }: { backup: Backup }) {
  if (backup.error)
    return (
      <p className="backup-error">
        <code>{backup.error.code}</code> {backup.error.message}
      </p>
    )
  const contents = backup.contents
  if (!contents) return <span className="muted">{backup.status === 'running' ? 'Being taken…' : '—'}</span>
  return (
    <ul className="backup-contents">
      <li>
        {contents.files
          ? `Files: ${formatCount(contents.files.count)} (${formatBytes(contents.files.bytes)})`
          : 'No files'}
      </li>
      {contents.databases.map((database) => (
        <li key={database.databaseId}>
          Database {database.name}: {formatCount(database.tables)}{' '}
          {database.tables === 1 ? 'table' : 'tables'} ({formatBytes(database.bytes)})
        </li>
      ))}
      {contents.record ? <li>The site’s record</li> : null}
    </ul>
  )
}
