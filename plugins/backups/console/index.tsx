// The backups plugin's console pages: a site's backups (a tab of the site: the last good backup's age, back up now,
// the list, download, the policy) and the restore of one with its preview and undo; for staff, the backup targets
// and the sites whose backups are overdue (flagged on the dashboard too). The restore and the staff pages are
// loaded when first opened: most visits never open them, and they are half the area's script.

import { lazy, type ReactNode, Suspense } from 'react'
import { defineConsolePages, Loading } from '../../console/kit.ts'
import { OverdueBackupsNotice } from './overdue-backups-notice.tsx'
import { SiteBackupsPage } from './site-backups-page.tsx'
import './backups.css'

const RestorePage = lazy(() =>
  import('./restore-page.tsx').then((module) => ({ default: module.RestorePage })),
)
const BackupTargetsPage = lazy(() =>
  import('./backup-targets-page.tsx').then((module) => ({ default: module.BackupTargetsPage })),
)
const BackupTargetNewPage = lazy(() =>
  import('./backup-target-new-page.tsx').then((module) => ({ default: module.BackupTargetNewPage })),
)
const OverdueBackupsPage = lazy(() =>
  import('./overdue-backups-page.tsx').then((module) => ({ default: module.OverdueBackupsPage })),
)

const loaded = (page: ReactNode) => <Suspense fallback={<Loading />}>{page}</Suspense>

export default defineConsolePages({
  navigation: [
    {
      group: 'Platform',
      label: 'Backup targets',
      to: '/backup-targets',
      scope: 'backup-target:read',
      audience: 'staff',
      order: 615,
    },
    {
      group: 'Platform',
      label: 'Overdue backups',
      to: '/backups/overdue',
      scope: 'backup-policy:manage',
      audience: 'staff',
      order: 616,
    },
  ],
  // The dashboard flags sites whose backups are overdue, for the staff who see the list.
  notices: [
    { name: 'overdue-backups', scope: 'backup-policy:manage', render: () => <OverdueBackupsNotice /> },
  ],
  routes: [
    {
      path: '/sites/:id/backups',
      scope: 'backup:read',
      tab: { of: '/sites/:id', label: 'Backups', order: 60 },
      render: ({ id = '' }) => <SiteBackupsPage key={id} siteId={id} />,
    },
    {
      path: '/sites/:id/backups/:backupId/restore',
      scope: 'backup:manage',
      render: ({ id = '', backupId = '' }) =>
        loaded(<RestorePage key={`${id}/${backupId}`} siteId={id} backupId={backupId} />),
    },
    { path: '/backup-targets', audience: 'staff', render: () => loaded(<BackupTargetsPage />) },
    {
      path: '/backup-targets/new',
      audience: 'staff',
      scope: 'backup-target:manage',
      render: () => loaded(<BackupTargetNewPage />),
    },
    {
      path: '/backups/overdue',
      audience: 'staff',
      scope: 'backup-policy:manage',
      render: () => loaded(<OverdueBackupsPage />),
    },
  ],
})
