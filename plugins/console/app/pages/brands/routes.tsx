// The brands area's pages: the list (and creating, platform staff) and a brand's look.

import type { RouteDefinition } from '../../router.tsx'
import { BrandDetail } from './brand-detail.tsx'
import { BrandList } from './brand-list.tsx'
import './brands.css'

export const brandRoutes: RouteDefinition[] = [
  { path: '/brands', render: () => <BrandList /> },
  { path: '/brands/:id', render: (params) => <BrandDetail id={params.id ?? ''} /> },
]
