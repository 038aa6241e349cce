// The site's background work: each job makes the site's node match what the API accepted, through the node's
// driver, then moves the site to its next state. Every step is idempotent, so a run repeated after a crash is safe.

import {
  adjustUsage,
  type JobDefinition,
  JobFailure,
  type JobRun,
  type PluginContext,
  type Trx,
} from '../../core/index.ts'
import { nodeDirectory, type SiteSpec } from '../nodes/contract.ts'
import type { SitesTable } from './migrations.ts'
import { deleteSiteRow, findSiteRow, toSite, updateSite } from './repository.ts'

/** Job kinds of the sites plugin. */
export const siteJobKinds = {
  provision: 'site.provision',
  update: 'site.update',
  suspend: 'site.suspend',
  unsuspend: 'site.unsuspend',
  delete: 'site.delete',
} as const

export function specOf(row: SitesTable): SiteSpec {
  return {
    id: row.id,
    handle: row.handle,
    domain: row.domain,
    type: row.type,
    customerId: row.customer_id,
    diskMB: row.disk_mb,
  }
}

/** The sites plugin's job definitions. */
export function siteJobs(context: PluginContext): JobDefinition[] {
  const nodes = context.use(nodeDirectory)

  /** The site and its node's driver, or null when the site is gone (deleted meanwhile: nothing to do). */
  async function target(job: JobRun) {
    const row = await findSiteRow(context.db, job.subject.id)
    if (!row) return null
    const node = row.node_id ? await nodes.find(row.node_id) : null
    if (!node)
      throw new JobFailure(`The site's node ${row.node_id ?? '(none)'} does not exist`, 'node_missing')
    return { row, node, driver: nodes.driverOf(node) }
  }

  async function changed(trx: Trx, job: JobRun, row: SitesTable): Promise<void> {
    await job.emit(trx, { kind: 'site.updated', customerId: row.customer_id, data: toSite(row) })
  }

  return [
    {
      kind: siteJobKinds.provision,
      description:
        'Creates the site on its node, then makes it `active` (`failed` when it runs out of attempts).',
      maxAttempts: 5,
      async run(job) {
        const found = await target(job)
        if (!found || found.row.status !== 'provisioning') return { skipped: true }
        await job.progress(10, `Provisioning on node ${found.node.name}`)
        await found.driver.provision(found.node, specOf(found.row), job.signal)
        await job.progress(90, 'Activating')
        await job.transaction(async (trx) => {
          const current = await findSiteRow(trx, found.row.id)
          if (current?.status !== 'provisioning') return
          await changed(trx, job, await updateSite(trx, current.id, { status: 'active' }))
        })
        return { nodeId: found.node.id }
      },
      async onGivenUp(trx, job) {
        const row = await findSiteRow(trx, job.subject.id)
        if (row?.status !== 'provisioning') return
        await changed(trx, job, await updateSite(trx, row.id, { status: 'failed' }))
      },
    },
    {
      kind: siteJobKinds.update,
      description: 'Applies a changed domain or disk limit on the site’s node.',
      async run(job) {
        const found = await target(job)
        if (!found || (found.row.status !== 'active' && found.row.status !== 'suspended'))
          return { skipped: true }
        await job.progress(20, 'Updating the node')
        await found.driver.update(found.node, specOf(found.row), job.signal)
        return {}
      },
    },
    {
      kind: siteJobKinds.suspend,
      description: 'Stops serving a suspended site on its node.',
      async run(job) {
        const found = await target(job)
        if (found?.row.status !== 'suspended') return { skipped: true }
        await job.progress(20, 'Suspending on the node')
        await found.driver.suspend(found.node, specOf(found.row), job.signal)
        return {}
      },
    },
    {
      kind: siteJobKinds.unsuspend,
      description: 'Serves a site again after suspension.',
      async run(job) {
        const found = await target(job)
        if (found?.row.status !== 'active') return { skipped: true }
        await job.progress(20, 'Unsuspending on the node')
        await found.driver.unsuspend(found.node, specOf(found.row), job.signal)
        return {}
      },
    },
    {
      kind: siteJobKinds.delete,
      description: 'Removes the site from its node, then from the panel (`site.deleted`).',
      maxAttempts: 10,
      async run(job) {
        const found = await target(job)
        if (!found) return { alreadyGone: true }
        if (found.row.status !== 'deleting') return { skipped: true }
        await job.progress(20, 'Removing from the node')
        await found.driver.delete(found.node, specOf(found.row), job.signal)
        await job.progress(90, 'Forgetting the site')
        await job.transaction(async (trx) => {
          const row = await findSiteRow(trx, found.row.id)
          if (!row) return
          await deleteSiteRow(trx, row.id)
          await adjustUsage(trx, row.customer_id, 'sites', -1)
          await adjustUsage(trx, row.customer_id, 'domains', -1)
          if (row.disk_mb) await adjustUsage(trx, row.customer_id, 'diskMB', -row.disk_mb)
          await job.audit(trx, {
            action: 'site.remove',
            subject: { type: 'site', id: row.id },
            customerId: row.customer_id,
            details: { domain: row.domain, handle: row.handle },
          })
          await job.emit(trx, {
            kind: 'site.deleted',
            customerId: row.customer_id,
            data: { id: row.id, customerId: row.customer_id, domain: row.domain, handle: row.handle },
          })
        })
        return {}
      },
    },
  ]
}
