// The databases plugin's console pages: databases, database users (the logins with grants on them) and, for
// platform staff, the database servers they live on.

import { defineConsolePages } from '../../console/kit.ts'
import { DatabaseDetailPage } from './database-detail.tsx'
import { DatabaseListPage } from './database-list.tsx'
import { DatabaseNewPage } from './database-new.tsx'
import { DatabaseServerDetailPage } from './database-server-detail.tsx'
import { DatabaseServerListPage } from './database-server-list.tsx'
import { DatabaseServerNewPage } from './database-server-new.tsx'
import { DatabaseUserDetailPage } from './database-user-detail.tsx'
import { DatabaseUserListPage } from './database-user-list.tsx'
import { DatabaseUserNewPage } from './database-user-new.tsx'
import './databases.css'

export default defineConsolePages({
  navigation: [
    {
      group: 'Hosting',
      label: 'Databases',
      to: '/databases',
      scope: 'database:read',
      audience: 'both',
      order: 300,
    },
    {
      group: 'Hosting',
      label: 'Database users',
      to: '/database-users',
      scope: 'database:read',
      audience: 'both',
      order: 310,
    },
    {
      group: 'Platform',
      label: 'Database servers',
      to: '/database-servers',
      scope: 'database-server:read',
      audience: 'staff',
      order: 610,
    },
  ],
  routes: [
    { path: '/databases', render: () => <DatabaseListPage /> },
    { path: '/databases/new', render: () => <DatabaseNewPage /> },
    { path: '/databases/:id', render: ({ id = '' }) => <DatabaseDetailPage key={id} id={id} /> },
    { path: '/database-users', render: () => <DatabaseUserListPage /> },
    { path: '/database-users/new', render: () => <DatabaseUserNewPage /> },
    { path: '/database-users/:id', render: ({ id = '' }) => <DatabaseUserDetailPage key={id} id={id} /> },
    { path: '/database-servers', render: () => <DatabaseServerListPage /> },
    {
      path: '/database-servers/new',
      scope: 'database-server:manage',
      render: () => <DatabaseServerNewPage />,
    },
    { path: '/database-servers/:id', render: ({ id = '' }) => <DatabaseServerDetailPage key={id} id={id} /> },
  ],
})
