// The customers area's pages: the staff list of customers, creating one, a customer's page with its team, and
// the portal's team page.

import type { RouteDefinition } from '../../router.tsx'
import './customers.css'
import { CustomerList } from './customer-list.tsx'
import { CustomerPage } from './customer-page.tsx'
import { NewCustomer } from './new-customer.tsx'
import { TeamPage } from './team-page.tsx'

export const customerRoutes: RouteDefinition[] = [
  { path: '/customers', render: () => <CustomerList /> },
  // Before `/customers/:id`: the first matching route wins.
  { path: '/customers/new', scope: 'customer:create', render: () => <NewCustomer /> },
  { path: '/customers/:id', render: ({ id }) => <CustomerPage id={id ?? ''} /> },
  { path: '/team', render: () => <TeamPage /> },
]
