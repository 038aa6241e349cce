// The records of a deleted customer the kernel removes itself: those of every resource declared with an owning
// customer (`resourceRoutes`' `owner.customer`) whose deletion the kernel does (a `remove` without handler). Each
// goes as its DELETE goes, row by row: its children, the row, its audit entry, its event and its usage.

import type { JobRun } from '../jobs/job-definition.ts'
import type { Trx } from '../store/store.ts'
import type { UsageCounters } from '../usage/usage-counters.ts'
import type { CustomerCascade } from './customer-cascade.ts'
import type { EventInput, RouteDefinition } from './route.ts'

/** A DELETE route that removes records with their customer, and the plugin whose it is. */
export interface CustomerResource {
  readonly plugin: string
  readonly route: RouteDefinition & { readonly removedWithCustomer: CustomerCascade }
}

/** What the removal writes through besides the job: the outbox, and each plugin's usage counters. */
export interface CustomerResourceWriters {
  writeEvent(trx: Trx, event: EventInput): Promise<void>
  usageFor(plugin: string): UsageCounters
}

/** The DELETE routes among a plugin's routes that remove records with their customer. */
export function customerResourcesOf(plugin: string, routes: readonly RouteDefinition[]): CustomerResource[] {
  return routes
    .filter((route) => route.removedWithCustomer !== undefined)
    .map((route) => ({ plugin, route: route as CustomerResource['route'] }))
}

/**
 * Removes `customerId`'s records of every declared resource, inside its deletion job, the resources of plugins set
 * up later first: one transaction per resource, each row as its DELETE removes it (audit entry, event, the usage it
 * counted given back). Idempotent: run again after a crash, it finds what is left. Stops at `run.signal`.
 * @example await context.tenancy.removeResources(job, customer.id)
 */
export async function removeCustomerResources(
  resources: readonly CustomerResource[],
  writers: CustomerResourceWriters,
  run: JobRun,
  customerId: string,
): Promise<number> {
  let removed = 0
  for (const { plugin, route } of [...resources].reverse()) {
    run.signal.throwIfAborted()
    const change = route.change
    if (!change)
      throw new Error(`${route.method} ${route.path} removes records with their customer unrecorded`)
    const subjectType = change.action.split('.')[0] ?? ''
    removed += await run.transaction(async (trx) => {
      const rows = await route.removedWithCustomer.rowsOf(trx, customerId)
      for (const row of rows) {
        const item = await route.removedWithCustomer.remove(trx, row)
        const subject = change.subject?.(item) ?? { type: subjectType, id: String(item.id) }
        const details = change.details?.(item)
        await run.audit(trx, { action: change.action, subject, customerId, ...(details ? { details } : {}) })
        const data = change.payload ? change.payload(item) : item
        if (change.event) await writers.writeEvent(trx, { kind: change.event, customerId, data })
      }
      if (change.usage && rows.length > 0)
        await writers.usageFor(plugin).adjust(trx, customerId, change.usage.metric.name, -rows.length)
      return rows.length
    })
  }
  return removed
}
