// The nodes plugin's console pages (platform staff): the servers sites run on and their agents.

import { defineConsolePages } from '../../console/kit.ts'
import { NodeDetail } from './node-detail.tsx'
import { NodeList } from './node-list.tsx'
import { NodeNew } from './node-new.tsx'
import './nodes.css'

export default defineConsolePages({
  navigation: [
    { group: 'Platform', label: 'Nodes', to: '/nodes', scope: 'node:read', audience: 'staff', order: 600 },
  ],
  routes: [
    { path: '/nodes', render: () => <NodeList /> },
    { path: '/nodes/new', scope: 'node:manage', render: () => <NodeNew /> },
    { path: '/nodes/:id', render: ({ id = '' }) => <NodeDetail id={id} /> },
  ],
})
