// Download a backup as an archive: asks the API for a link (one use, short-lived) and opens it, so the browser
// downloads the archive itself; the link is never kept on the page.

import { InlineError, unwrap, useAction } from '../../console/kit.ts'
import { api, type Backup } from './api.ts'

export function DownloadBackup({ backup }: { backup: Backup }) {
  const download = useAction(
    () =>
      unwrap(
        api.POST('/api/v1/sites/{id}/backups/{backupId}/download', {
          params: { path: { id: backup.siteId, backupId: backup.id } },
        }),
      ),
    (link) => {
      window.location.assign(link.url)
    },
  )
  return (
    <>
      <button
        type="button"
        className="button secondary"
        disabled={download.isPending}
        onClick={() => download.mutate(undefined)}
      >
        Download
        <span className="visually-hidden"> backup of {new Date(backup.createdAt).toLocaleString()}</span>
      </button>
      {download.error ? <InlineError error={download.error} /> : null}
    </>
  )
}
