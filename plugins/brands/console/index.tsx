// The brands plugin's console pages: the list (and creating, platform staff) and a brand's look.

import { defineConsolePages } from '../../console/kit.ts'
import { BrandDetail } from './brand-detail.tsx'
import { BrandList } from './brand-list.tsx'
import './brands.css'

export default defineConsolePages({
  navigation: [
    { group: 'Platform', label: 'Brands', to: '/brands', scope: 'brand:read', audience: 'staff', order: 620 },
  ],
  routes: [
    { path: '/brands', render: () => <BrandList /> },
    { path: '/brands/:id', render: ({ id = '' }) => <BrandDetail id={id} /> },
  ],
})
