// The nodes area's pages (platform staff): the servers sites run on and their agents.

import type { RouteDefinition } from '../../router.tsx'
import { NodeDetail } from './node-detail.tsx'
import { NodeList } from './node-list.tsx'
import { NodeNew } from './node-new.tsx'
import './nodes.css'

// `/nodes/new` comes before `/nodes/:id`, which would match it too.
export const nodeRoutes: RouteDefinition[] = [
  { path: '/nodes', render: () => <NodeList /> },
  { path: '/nodes/new', scope: 'node:manage', render: () => <NodeNew /> },
  { path: '/nodes/:id', render: ({ id = '' }) => <NodeDetail id={id} /> },
]
