// The billing plugin's console pages: plans (staff) and subscriptions, with checkout for customers.

import { defineConsolePages } from '../../console/kit.ts'
import './billing.css'
import { Checkout } from './checkout.tsx'
import { PlanDetail } from './plan-detail.tsx'
import { PlanList } from './plan-list.tsx'
import { PlanNew } from './plan-new.tsx'
import { SubscriptionDetail } from './subscription-detail.tsx'
import { SubscriptionList } from './subscription-list.tsx'
import { SubscriptionNew } from './subscription-new.tsx'

export default defineConsolePages({
  navigation: [
    { group: 'Billing', label: 'Plans', to: '/plans', scope: 'plan:read', audience: 'staff', order: 500 },
    {
      group: 'Billing',
      label: 'Subscriptions',
      to: '/subscriptions',
      scope: 'billing:read',
      audience: 'both',
      order: 510,
    },
  ],
  routes: [
    { path: '/plans', render: () => <PlanList /> },
    { path: '/plans/new', scope: 'plan:manage', render: () => <PlanNew /> },
    { path: '/plans/:id', render: ({ id = '' }) => <PlanDetail id={id} /> },
    { path: '/subscriptions', render: () => <SubscriptionList /> },
    { path: '/subscriptions/new', scope: 'billing:manage', render: () => <SubscriptionNew /> },
    { path: '/subscriptions/checkout', render: () => <Checkout /> },
    { path: '/subscriptions/:id', render: ({ id = '' }) => <SubscriptionDetail id={id} /> },
  ],
})
