// The webhooks plugin's console pages (staff): endpoints, their secrets and their delivery logs.

import { defineConsolePages } from '../../console/kit.ts'
import { DeliveryDetail } from './delivery-detail.tsx'
import { WebhookDetail } from './webhook-detail.tsx'
import { WebhookList } from './webhook-list.tsx'
import { WebhookNew } from './webhook-new.tsx'
import './webhooks.css'

export default defineConsolePages({
  navigation: [
    {
      group: 'Platform',
      label: 'Webhooks',
      to: '/webhooks',
      scope: 'webhook:read',
      audience: 'staff',
      order: 640,
    },
  ],
  routes: [
    { path: '/webhooks', render: () => <WebhookList /> },
    { path: '/webhooks/new', scope: 'webhook:manage', render: () => <WebhookNew /> },
    { path: '/webhooks/:id', render: ({ id = '' }) => <WebhookDetail id={id} /> },
    {
      path: '/webhooks/:id/deliveries/:deliveryId',
      render: ({ id = '', deliveryId = '' }) => <DeliveryDetail id={id} deliveryId={deliveryId} />,
    },
  ],
})
