// `/backups/overdue` (staff): sites whose last good backup is older than their schedule allows, the oldest first,
// each with its last failure's reason when it has one, linked to the site's backups.

import { CursorTable, customerColumn, formatTime, Link, PageHeader } from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { ageText } from './backup-age.ts'

type Overdue = Schemas['OverdueSite']

export function OverdueBackupsPage() {
  return (
    <>
      <PageHeader
        title="Overdue backups"
        subtitle="Sites whose last good backup is older than their schedule allows."
      />
      <CursorTable<Overdue>
        list={api.list('/api/v1/backups/overdue')}
        caption="Sites with overdue backups"
        rowKey={(item) => item.siteId}
        empty="No site is overdue: every scheduled site has a recent good backup."
        columns={[
          {
            header: 'Site',
            cell: (item) => (
              <Link to={`/sites/${encodeURIComponent(item.siteId)}/backups`}>{item.domain}</Link>
            ),
          },
          customerColumn,
          { header: 'Schedule', cell: (item) => item.schedule },
          {
            header: 'Last good backup',
            cell: (item) =>
              item.lastGoodBackupAt
                ? `${ageText(item.lastGoodBackupAt)} (${formatTime(item.lastGoodBackupAt)})`
                : 'Never',
          },
          {
            header: 'Last failure',
            cell: (item) =>
              item.lastFailure ? (
                <>
                  <code>{item.lastFailure.code}</code> {item.lastFailure.message} (
                  {formatTime(item.lastFailure.at)})
                </>
              ) : (
                '—'
              ),
          },
        ]}
      />
    </>
  )
}
