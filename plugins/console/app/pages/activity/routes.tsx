// The activity area's pages: background jobs and the audit log.

import type { ConsoleRoute } from '../../console-pages.ts'
import './activity.css'
import { AuditLog } from './audit-log.tsx'
import { JobDetail } from './job-detail.tsx'
import { JobList } from './job-list.tsx'

export const activityRoutes: readonly ConsoleRoute[] = [
  { path: '/jobs', render: () => <JobList /> },
  { path: '/jobs/:id', render: ({ id = '' }) => <JobDetail id={id} /> },
  { path: '/audit', render: () => <AuditLog /> },
]
