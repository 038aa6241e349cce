// The customers plugin's console pages: the staff list of customers, creating one, a customer's page with its team,
// and the portal's team page.

import { defineConsolePages } from '../../console/kit.ts'
import './customers.css'
import { CustomerList } from './customer-list.tsx'
import { CustomerPage } from './customer-page.tsx'
import { NewCustomer } from './new-customer.tsx'
import { TeamPage } from './team-page.tsx'

export default defineConsolePages({
  navigation: [
    {
      group: 'Hosting',
      label: 'Customers',
      to: '/customers',
      scope: 'customer:create',
      audience: 'staff',
      order: 100,
    },
    { group: 'Hosting', label: 'Team', to: '/team', scope: 'customer:read', audience: 'member', order: 110 },
  ],
  routes: [
    { path: '/customers', render: () => <CustomerList /> },
    { path: '/customers/new', scope: 'customer:create', render: () => <NewCustomer /> },
    { path: '/customers/:id', render: ({ id = '' }) => <CustomerPage id={id} /> },
    { path: '/team', render: () => <TeamPage /> },
  ],
})
