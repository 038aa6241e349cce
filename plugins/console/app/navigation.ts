// The app's areas in its navigation, each shown to those who hold its scope: staff see the operator console's
// areas, team members the portal's. The API still decides; a hidden link is only tidiness.

export interface NavItem {
  readonly label: string
  readonly to: string
  /** Shown when the caller holds this scope (null: everyone signed in). */
  readonly scope: string | null
  /** Who it is for: staff (the console), members (the portal), or both. */
  readonly audience: 'staff' | 'member' | 'both'
}

export interface NavGroup {
  readonly label: string
  readonly items: readonly NavItem[]
}

export const navigation: readonly NavGroup[] = [
  {
    label: 'Overview',
    items: [{ label: 'Dashboard', to: '/', scope: null, audience: 'both' }],
  },
  {
    label: 'Hosting',
    items: [
      { label: 'Customers', to: '/customers', scope: 'customer:create', audience: 'staff' },
      { label: 'Team', to: '/team', scope: 'customer:read', audience: 'member' },
      { label: 'Sites', to: '/sites', scope: 'site:read', audience: 'both' },
      { label: 'Databases', to: '/databases', scope: 'database:read', audience: 'both' },
      { label: 'Database users', to: '/database-users', scope: 'database:read', audience: 'both' },
      { label: 'Certificates', to: '/certificates', scope: 'certificate:read', audience: 'both' },
    ],
  },
  {
    label: 'Billing',
    items: [
      { label: 'Plans', to: '/plans', scope: 'plan:read', audience: 'staff' },
      { label: 'Subscriptions', to: '/subscriptions', scope: 'billing:read', audience: 'both' },
    ],
  },
  {
    label: 'Platform',
    items: [
      { label: 'Nodes', to: '/nodes', scope: 'node:read', audience: 'staff' },
      {
        label: 'Database servers',
        to: '/database-servers',
        scope: 'database-server:read',
        audience: 'staff',
      },
      { label: 'Brands', to: '/brands', scope: 'brand:read', audience: 'staff' },
      { label: 'Staff and users', to: '/users', scope: 'user:read', audience: 'staff' },
      { label: 'Webhooks', to: '/webhooks', scope: 'webhook:read', audience: 'staff' },
    ],
  },
  {
    label: 'Activity',
    items: [
      { label: 'Jobs', to: '/jobs', scope: 'job:read', audience: 'both' },
      { label: 'Audit log', to: '/audit', scope: 'audit:read', audience: 'both' },
    ],
  },
  {
    label: 'Account',
    items: [
      { label: 'API tokens', to: '/api-tokens', scope: null, audience: 'both' },
      { label: 'Your account', to: '/account', scope: null, audience: 'both' },
    ],
  },
]
