// The site's background work: each job makes the site's node match what the API accepted, through the node's
// driver, then moves the site to its next state. Every step is idempotent, so a run repeated after a crash is safe.

import {
  type Db,
  JobAttemptFailure,
  type JobDefinition,
  JobFailure,
  type JobRun,
  jobIsLive,
  type PluginContext,
  removeDependents,
  type Trx,
} from '../../core/index.ts'
import { customerSuspensions } from '../customers/contract.ts'
import { nodeCommand, nodeDirectory, type SiteServing, type SiteSpec } from '../nodes/contract.ts'
import { type CreatedSite, siteDependents, siteTypes } from './contract.ts'
import type { SitesTable } from './migrations.ts'
import {
  attemptError,
  type ProvisioningFailure,
  type ProvisioningStep,
  provisioningFailureOf,
} from './provisioning-failure.ts'
import {
  deleteSiteRow,
  findSiteRow,
  recordAppliedLimits,
  siteRefOf,
  toSite,
  updateSite,
} from './repository.ts'
import { servingOf } from './serving.ts'
import { type SiteRunLimits, siteRunLimits, specLimitsOf } from './site-limits.ts'

/** Job kinds of the sites plugin. */
export const siteJobKinds = {
  provision: 'site.provision',
  update: 'site.update',
  suspend: 'site.suspend',
  unsuspend: 'site.unsuspend',
  delete: 'site.delete',
  /** Provisions again a site its node lost (reconciliation found it missing). */
  restore: 'site.restore',
} as const

/** What the node driver is told about a site: its record with the limits it runs under (site-limits.ts). */
export function specOf(row: SitesTable, run: SiteRunLimits, serving: SiteServing | null = null): SiteSpec {
  return {
    id: row.id,
    handle: row.handle,
    domain: row.domain,
    type: row.type,
    customerId: row.customer_id,
    diskMB: row.disk_mb,
    ...specLimitsOf(run),
    ...(serving ? { serving } : {}),
  }
}

/** The columns of a site's error, cleared: it was provisioned, or is provisioned again. */
export const noError = { error_code: null, error_message: null, error_job_id: null } as const

/** The columns of a site's drift, cleared: nothing found wrong with it on its node. */
export const noDrift = {
  drift_code: null,
  drift_message: null,
  drift_job_id: null,
  drift_detected_at: null,
} as const

/** A site as its type's hooks see it. */
const createdSiteOf = (row: SitesTable): CreatedSite => ({
  id: row.id,
  customerId: row.customer_id,
  name: row.name,
  domain: row.domain,
  handle: row.handle,
  nodeId: row.node_id,
})

/** The job attempt a driver call belongs to, which remote drivers send with the operation. */
const runOf = (job: JobRun) => ({ jobId: job.id, attempt: job.attempt })

/** The sites plugin's job definitions. */
export function siteJobs(context: PluginContext): JobDefinition[] {
  const nodes = context.use(nodeDirectory)
  const types = context.extensionPoint(siteTypes)
  const suspensions = context.use(customerSuspensions)

  /** Whether a reason keeps the site suspended: a hold on its customer that covers it, or staff. */
  async function kept(db: Db, row: SitesTable): Promise<boolean> {
    if (row.suspended_by_staff === 1) return true
    const holders = await suspensions.holdersOf(db, {
      customerId: row.customer_id,
      kind: 'sites',
      id: row.id,
    })
    return holders.length > 0
  }

  /**
   * A site removed while this provisioning job had it (`deleting`, and still this job's): starts its deletion now
   * that no other job works on it. Answers whether it did.
   */
  async function handOverToDeletion(trx: Trx, job: JobRun, row: SitesTable | undefined): Promise<boolean> {
    if (row?.status !== 'deleting' || row.job_id !== job.id) return false
    const jobId = await context.enqueueJob(trx, {
      kind: siteJobKinds.delete,
      customerId: row.customer_id,
      subject: { type: 'site', id: row.id },
    })
    await changed(trx, job, await updateSite(trx, row.id, { job_id: jobId }))
    return true
  }

  /**
   * The site, its node and what the node is told of it (its limits as they are now), or null when the site is gone
   * (deleted meanwhile: nothing to do).
   */
  async function target(job: JobRun) {
    const row = await findSiteRow(context.db, job.subject.id)
    if (!row) return null
    const node = row.node_id ? await nodes.find(row.node_id) : null
    if (!node)
      throw new JobFailure(`The site's node ${row.node_id ?? '(none)'} does not exist`, 'node_missing')
    const spec = specOf(
      row,
      await siteRunLimits(context.db, context.quotas, row, node),
      await servingOf(context, context.db, siteRefOf(row)),
    )
    return { row, node, spec }
  }

  /**
   * Records the limits the node took with `spec` (so the limits check does not send them again). Outside the job's
   * transactions: a later write of other limits (a change meanwhile) is put right by the next check.
   */
  async function applied(spec: SiteSpec): Promise<void> {
    const limits = JSON.stringify({
      cpuPercent: spec.cpuPercent ?? null,
      memoryMB: spec.memoryMB ?? null,
      processes: spec.processes ?? null,
      allowFunctions: spec.allowFunctions ?? [],
    })
    await recordAppliedLimits(context.db, spec.id, limits)
  }

  /**
   * Writes why an attempt failed on the site, which stays `provisioning` while attempts are left (the last one, or a
   * final failure, makes it `failed` in `onGivenUp`). Only while this job is still the one provisioning it.
   */
  async function noteFailedAttempt(trx: Trx, job: JobRun, failure: ProvisioningFailure): Promise<void> {
    const row = await findSiteRow(trx, job.subject.id)
    if (row?.status !== 'provisioning' || row.job_id !== job.id) return
    const noted = await updateSite(trx, row.id, {
      error_code: failure.code,
      error_message: failure.message,
      error_job_id: job.id,
    })
    await changed(trx, job, noted)
  }

  /**
   * Waits for the job that worked on the site before its deletion (`after`: a provisioning the deletion cancelled)
   * to end, so the two never change the site at once. A cancelled run ends within moments, or once the node call it
   * is in returns; one still running after half a minute ends this attempt instead, to be tried again.
   */
  async function untilEnded(job: JobRun, after: unknown): Promise<void> {
    if (typeof after !== 'string') return
    const deadline = Date.now() + 30_000
    while (await jobIsLive(context.db, after)) {
      if (Date.now() > deadline)
        throw new JobAttemptFailure(
          `The job ${after} still works on the site; its deletion waits`,
          'site_busy',
        )
      job.signal.throwIfAborted()
      await Bun.sleep(50)
    }
  }

  async function changed(trx: Trx, job: JobRun, row: SitesTable): Promise<void> {
    await job.emit(trx, { kind: 'site.updated', customerId: row.customer_id, data: toSite(row) })
  }

  return [
    {
      kind: siteJobKinds.provision,
      description:
        'Creates the site on its node, then makes it `active` (`suspended` when a hold on its customer covers it by then). An attempt that fails writes why on the site (`error`); a refusal (no database server, the node refuses) or the last attempt makes it `failed`. Cancelling it (deleting the site does) makes the site `failed` with the code `cancelled` unless it is being deleted.',
      maxAttempts: 5,
      cancellable: true,
      async run(job) {
        const found = await target(job)
        if (found?.row.status === 'deleting') {
          const handed = await job.transaction(async (trx) =>
            handOverToDeletion(trx, job, await findSiteRow(trx, job.subject.id)),
          )
          return handed ? { removed: true } : { skipped: true }
        }
        if (found?.row.status !== 'provisioning') return { skipped: true }
        const type = types.get(found.row.type)
        const created = createdSiteOf(found.row)
        let step: ProvisioningStep = 'application'
        let suspendedOnNode: boolean
        try {
          // What the site's type installs (WordPress), its database made first.
          if (type?.app) await job.progress(5, `Preparing ${type.name}`)
          const app = await type?.app?.(job, created)
          step = 'node'
          await job.progress(10, 'Provisioning on its node')
          const spec = { ...found.spec, ...(app ? { app } : {}) }
          await nodes.send(found.node, nodeCommand('provision', spec), job.signal, runOf(job))
          await applied(found.spec)
          // Held meanwhile: it must not serve for a moment. Suspending is idempotent, so a repeated run is safe.
          suspendedOnNode = await kept(context.db, found.row)
          if (suspendedOnNode) {
            await job.progress(80, 'Suspending: its customer is on hold')
            await nodes.send(found.node, nodeCommand('suspend', found.spec), job.signal, runOf(job))
          }
        } catch (error) {
          // Stopped (cancelled, timed out, the panel stopping): the runner says so; nothing to tell the site.
          if (job.signal.aborted) throw error
          const failure = provisioningFailureOf(error, step)
          await job.transaction((trx) => noteFailedAttempt(trx, job, failure))
          throw attemptError(failure)
        }
        await job.progress(90, 'Activating')
        const status = await job.transaction(async (trx) => {
          const current = await findSiteRow(trx, found.row.id)
          if (await handOverToDeletion(trx, job, current)) return 'deleting'
          if (current?.status !== 'provisioning') return current?.status ?? 'gone'
          const suspended = await kept(trx, current)
          // The hold came or went between the node call and now: a job of its own puts the node right.
          const jobId =
            suspended === suspendedOnNode
              ? current.job_id
              : await context.enqueueJob(trx, {
                  kind: suspended ? siteJobKinds.suspend : siteJobKinds.unsuspend,
                  customerId: current.customer_id,
                  subject: { type: 'site', id: current.id },
                })
          const to = suspended ? 'suspended' : 'active'
          await type?.provisioned?.(trx, created)
          await changed(
            trx,
            job,
            await updateSite(trx, current.id, { status: to, job_id: jobId, ...noError }),
          )
          return to
        })
        return { nodeId: found.node.id, status }
      },
      async onGivenUp(trx, job, outcome, error) {
        const row = await findSiteRow(trx, job.subject.id)
        if (await handOverToDeletion(trx, job, row)) return
        // Deleted meanwhile (its deletion cancelled this job), or already provisioned again by a newer job.
        if (row?.status !== 'provisioning' || row.job_id !== job.id) return
        const message =
          outcome === 'cancelled' ? 'Provisioning was cancelled before the site was ready.' : error.message
        const failed = await updateSite(trx, row.id, {
          status: 'failed',
          error_code: error.code,
          error_message: message,
          error_job_id: job.id,
        })
        await job.audit(trx, {
          action: 'site.fail',
          subject: { type: 'site', id: row.id },
          customerId: row.customer_id,
          details: { from: row.status, to: 'failed', code: error.code },
        })
        await changed(trx, job, failed)
      },
    },
    {
      kind: siteJobKinds.restore,
      description:
        'Provisions again, on its node, an `active` or `suspended` site that reconciliation found missing there (a rebuilt node, a store restored): its home, Unix user, pool and server block, and its application installed again (WordPress, over its database), then suspended again if it was. It serves again, but from nothing: `drift` becomes `content_lost` (its files are gone unless restored from a backup); giving up makes it `restore_failed` (`site.drifted`). The site’s state does not change. The certificate attached to it is installed again by the certificates plugin’s own job.',
      maxAttempts: 5,
      async run(job) {
        const found = await target(job)
        const wanted = found?.row.status
        if (!found || (wanted !== 'active' && wanted !== 'suspended')) return { skipped: true }
        const type = types.get(found.row.type)
        if (type?.app) await job.progress(5, `Preparing ${type.name}`)
        const app = await type?.app?.(job, createdSiteOf(found.row))
        await job.progress(20, 'Provisioning again on its node')
        const spec = { ...found.spec, ...(app ? { app } : {}) }
        await nodes.send(found.node, nodeCommand('provision', spec), job.signal, runOf(job))
        await applied(found.spec)
        if (wanted === 'suspended')
          await nodes.send(found.node, nodeCommand('suspend', found.spec), job.signal, runOf(job))
        await job.progress(90, 'Recording')
        await job.transaction(async (trx) => {
          const current = await findSiteRow(trx, found.row.id)
          if (current?.status !== wanted) return
          const restored = await updateSite(trx, current.id, {
            drift_code: 'content_lost',
            drift_message: `The site was missing on its node ${found.node.name} and was provisioned again from nothing: it serves again, but the files it had are gone (${app ? `a fresh install of ${app.kind} over its database` : 'a placeholder page'}); restore them from a backup, then clear this with PATCH /sites/{id} { "drift": null }.`,
            drift_job_id: job.id,
          })
          await changed(trx, job, restored)
        })
        return { nodeId: found.node.id, restored: true }
      },
      async onGivenUp(trx, job, _outcome, error) {
        const row = await findSiteRow(trx, job.subject.id)
        if (row?.status !== 'active' && row?.status !== 'suspended') return
        // Said once: a site whose restores keep failing is tried again at each round without a new event.
        const kind = row.drift_code === 'restore_failed' ? 'site.updated' : 'site.drifted'
        const drifted = await updateSite(trx, row.id, {
          drift_code: 'restore_failed',
          drift_message: `The site is missing on its node and could not be provisioned there again: ${error.message} (${error.code})`,
          drift_job_id: job.id,
          drift_detected_at: new Date().toISOString(),
        })
        await job.emit(trx, { kind, customerId: row.customer_id, data: toSite(drifted) })
      },
    },
    {
      kind: siteJobKinds.update,
      description:
        'Applies a changed domain, limit or serving setting on the site’s node: its disk quota, the CPU, memory and processes it may take (its own, its plan’s or its node’s defaults, as they are when the job runs), or how it is served (its PHP settings, page cache, redirects: every part as it is when the job runs).',
      async run(job) {
        const found = await target(job)
        if (!found || (found.row.status !== 'active' && found.row.status !== 'suspended'))
          return { skipped: true }
        await job.progress(20, 'Updating the node')
        await nodes.send(found.node, nodeCommand('update', found.spec), job.signal, runOf(job))
        await applied(found.spec)
        const { cpuPercent, memoryMB, processes, diskMB, allowFunctions } = found.spec
        return { limits: { cpuPercent, memoryMB, processes, diskMB }, allowFunctions }
      },
    },
    {
      kind: siteJobKinds.suspend,
      description: 'Stops serving a suspended site on its node.',
      // A suspension stops what the platform must stop (an unpaid or abusive site): ahead of customers' work.
      priority: 'urgent',
      async run(job) {
        const found = await target(job)
        if (found?.row.status !== 'suspended') return { skipped: true }
        await job.progress(20, 'Suspending on the node')
        await nodes.send(found.node, nodeCommand('suspend', found.spec), job.signal, runOf(job))
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
        await nodes.send(found.node, nodeCommand('unsuspend', found.spec), job.signal, runOf(job))
        return {}
      },
    },
    {
      kind: siteJobKinds.delete,
      description: 'Removes the site from its node, then from the panel (`site.deleted`).',
      maxAttempts: 10,
      // A deleted site's processes and files go at once, ahead of customers' work, whatever the lane holds.
      priority: 'urgent',
      async run(job) {
        const found = await target(job)
        if (!found) return { alreadyGone: true }
        if (found.row.status !== 'deleting') return { skipped: true }
        await untilEnded(job, job.input.after)
        await job.progress(20, 'Removing from the node')
        await nodes.send(found.node, nodeCommand('delete', found.spec), job.signal, runOf(job))
        await job.progress(60, 'Removing what other plugins keep of the site')
        await removeDependents(context.extensionPoint(siteDependents), job, siteRefOf(found.row))
        await job.progress(90, 'Forgetting the site')
        await job.transaction(async (trx) => {
          const row = await findSiteRow(trx, found.row.id)
          if (!row) return
          await deleteSiteRow(trx, row.id)
          await context.usage.adjust(trx, row.customer_id, 'sites', -1)
          await context.usage.adjust(trx, row.customer_id, 'domains', -1)
          if (row.disk_mb) await context.usage.adjust(trx, row.customer_id, 'diskMB', -row.disk_mb)
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
