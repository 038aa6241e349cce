// The webhooks plugin: staff register endpoints; every event is fanned out to the endpoints that want it and
// delivered, signed per Standard Webhooks, at least once, with retries over about three days.

import { definePlugin, type Store } from '../../core/index.ts'
import { brandDependents } from '../brands/contract.ts'
import { addConsolePages } from '../console/contract.ts'
import { webhookScopes } from './contract.ts'
import { createDeliveryLoop, type DeliveryLoop } from './delivery-loop.ts'
import { webhookFanOut } from './fan-out.ts'
import { webhooksMigrations } from './migrations.ts'
import { deliveryObserver } from './observability.ts'
import { resolveSettings, type WebhooksOptions } from './options.ts'
import { webhooksProblems } from './problems.ts'
import { endpointsOfBrand } from './repository.ts'
import { deliveryRoutes } from './routes/deliveries.ts'
import { rotateSecretRoutes } from './routes/rotate-secret.ts'
import { webhookRoutes } from './routes/webhooks.ts'

export type { WebhooksOptions } from './options.ts'

/** Webhooks: endpoints in the administrative integrations area, and the delivery of events to them. */
export const webhooksPlugin = (options: WebhooksOptions = {}) => {
  // Checked here, so a bad option fails when the deployment is assembled, naming the option.
  const settings = resolveSettings(options)
  // One loop per panel the plugin is mounted in (tests mount one factory result once, but nothing forbids more).
  const loops = new WeakMap<Store, DeliveryLoop>()
  const loopOf = (store: Store): DeliveryLoop => {
    const loop = loops.get(store)
    if (!loop) throw new Error('webhooks: the plugin was not set up in this panel')
    return loop
  }
  return definePlugin({
    name: 'webhooks',
    version: '0.1.0',
    description:
      'Webhook endpoints (the integrations area): events delivered signed per Standard Webhooks, retried, logged.',
    // Its console pages, when the installation has a console; a brand's endpoints keep the brand.
    enhances: ['console', 'brands'],
    scopes: [
      { name: webhookScopes.read, description: 'Read webhook endpoints and their deliveries', staff: true },
      {
        name: webhookScopes.manage,
        description: 'Add, change, delete webhook endpoints, rotate secrets, redeliver',
        staff: true,
      },
    ],
    problems: webhooksProblems,
    migrations: webhooksMigrations,
    setup(context) {
      addConsolePages(context, import.meta.dir)
      context
        .extensionPoint(brandDependents)
        .add({ name: 'webhooks', blocking: (db, brand) => endpointsOfBrand(db, brand.id) })
      const loop = createDeliveryLoop({
        store: context.store,
        db: context.db,
        settings,
        secrets: context.secrets,
        audit: (trx, entry) => context.audit(trx, entry),
        observer: deliveryObserver(context),
      })
      loops.set(context.store, loop)
      context.consumeEvents(webhookFanOut(context.store, () => loop.nudge()))
    },
    start(context) {
      const loop = loopOf(context.store)
      loop.start()
      return () => loop.stop()
    },
    routes: (context) => [
      ...webhookRoutes(context, settings),
      ...rotateSecretRoutes(context),
      ...deliveryRoutes(context, () => loopOf(context.store).nudge()),
    ],
    capabilities: () => ({
      retryScheduleSeconds: settings.retryScheduleMs.map((delay) => delay / 1000),
      timeoutSeconds: settings.timeoutMs / 1000,
      signature: 'Standard Webhooks v1 (HMAC-SHA256)',
    }),
  })
}
