// The brands plugin's console pages: the list (and creating, platform staff) declared with the kit, and a brand's
// look on a page of its own.

import { formatTime, resourcePages } from '../../console/kit.ts'
import { api } from './api.ts'
import { BrandDetail } from './brand-detail.tsx'
import './brands.css'

export default resourcePages(api, {
  path: '/brands',
  scope: 'brand:read',
  audience: 'staff',
  navigation: { group: 'Platform', label: 'Brands', order: 620 },
  list: {
    read: '/api/v1/brands',
    title: 'Brands',
    subtitle: 'White-label resellers: each has its own staff, customers, plans and look.',
    empty: 'No brands yet.',
    columns: [
      { header: 'Name', cell: (brand) => brand.name },
      { header: 'Colours', cell: (brand) => `${brand.theme.primaryColor} / ${brand.theme.accentColor}` },
      { header: 'Host names', cell: (brand) => brand.hostnames.join(', ') || '—' },
      { header: 'Default', cell: (brand) => (brand.isDefault ? 'yes' : 'no') },
      { header: 'Created', cell: (brand) => formatTime(brand.createdAt) },
    ],
    create: { title: 'New brand', submitLabel: 'Create brand' },
  },
  item: { render: ({ id }) => <BrandDetail id={id} /> },
})
