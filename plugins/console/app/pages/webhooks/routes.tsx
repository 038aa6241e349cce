// The webhooks area's pages (staff): endpoints, their secrets and their delivery logs.

import type { RouteDefinition } from '../../router.tsx'
import { DeliveryDetail } from './delivery-detail.tsx'
import { WebhookDetail } from './webhook-detail.tsx'
import { WebhookList } from './webhook-list.tsx'
import { WebhookNew } from './webhook-new.tsx'
import './webhooks.css'

// `/webhooks/new` comes before `/webhooks/:id`, which would match it too.
export const webhookRoutes: RouteDefinition[] = [
  { path: '/webhooks', render: () => <WebhookList /> },
  { path: '/webhooks/new', scope: 'webhook:manage', render: () => <WebhookNew /> },
  { path: '/webhooks/:id', render: ({ id = '' }) => <WebhookDetail id={id} /> },
  {
    path: '/webhooks/:id/deliveries/:deliveryId',
    render: ({ id = '', deliveryId = '' }) => <DeliveryDetail id={id} deliveryId={deliveryId} />,
  },
]
