// Site operations after creation: change (PATCH), staff suspension and unsuspension, and delete. Each moves the site
// through the state machine (lifecycle.ts) in one transaction with its audit entry, event and the job that applies it.

import {
  defineRoute,
  fieldProblem,
  kernelProblems,
  nonBlankText,
  type PluginContext,
  Problem,
  Reply,
  type RouteDefinition,
  recorded,
  type Trx,
  t,
  unchanged,
} from '../../../core/index.ts'
import { customerSuspensions } from '../../customers/contract.ts'
import { nodeDirectory, siteLimitRanges } from '../../nodes/contract.ts'
import { Site, siteScopes, siteTypes } from '../contract.ts'
import { requireDiskQuota } from '../disk-quota.ts'
import { normaliseDomain } from '../domain.ts'
import { noDrift, noError, siteJobKinds } from '../jobs.ts'
import { illegalTransition, moveSite, type SiteStatus } from '../lifecycle.ts'
import type { SitesTable } from '../migrations.ts'
import { seesNodes } from '../node-insight.ts'
import { ownLimitChanges, ownLimitDetails, refuseOwnLimitsUnlessStaff } from '../own-limits.ts'
import { sitesProblems } from '../problems.ts'
import { domainTaken, siteRows, toSite, updateSite } from '../repository.ts'
import type { DomainReservations } from '../reserved-domains.ts'
import { startSiteDeletion } from '../site-deletion.ts'

const SiteParams = { id: 'site' } as const

const UpdateSiteBody = t.Object(
  {
    name: t.Optional(nonBlankText({ maxLength: 100, description: 'New name (the handle stays).' })),
    domain: t.Optional(t.String({ minLength: 1, maxLength: 253, description: 'New primary domain.' })),
    limits: t.Optional(
      t.Object(
        {
          diskMB: t.Optional(
            t.Union([t.Integer({ minimum: 0, maximum: 100_000_000 }), t.Null()], {
              description: 'Disk quota in MB, at least 0; null removes the limit.',
            }),
          ),
          cpuPercent: t.Optional(
            t.Union([t.Integer(siteLimitRanges.cpuPercent), t.Null()], {
              description:
                'Platform staff only: CPU for this site alone, in percent of one core (100 = one core), 1 to 100000; null: none of its own (its plan’s, else its node’s default).',
            }),
          ),
          memoryMB: t.Optional(
            t.Union([t.Integer(siteLimitRanges.memoryMB), t.Null()], {
              description:
                'Platform staff only: memory for this site alone, in MB, at least 16; null: none of its own.',
            }),
          ),
          processes: t.Optional(
            t.Union([t.Integer(siteLimitRanges.processes), t.Null()], {
              description:
                'Platform staff only: processes (and threads) for this site alone, 1 to 4194304 (the kernel’s most); null: none of its own.',
            }),
          ),
        },
        {
          description:
            'The site’s own limits; omitted members stay as they are. `cpuPercent`, `memoryMB` and `processes` are platform staff’s (others get 403 `limit_override_staff_only`).',
        },
      ),
    ),
    drift: t.Optional(
      t.Null({
        description:
          '`null` clears the site’s `drift` once its cause was dealt with (its files restored after reconciliation provisioned it again from nothing).',
      }),
    ),
  },
  { $id: 'UpdateSiteBody' },
)

/** The site operations after creation. */
export function siteLifecycleRoutes(context: PluginContext, reserved: DomainReservations): RouteDefinition[] {
  const suspensions = context.use(customerSuspensions)
  const nodes = context.use(nodeDirectory)
  const types = context.extensionPoint(siteTypes)

  /**
   * Checks a new disk quota against the customer's disk limit and moves its `diskMB` counter. Lowering a quota
   * always passes; removing it (null) is refused while the customer's disk is limited.
   */
  async function moveDisk(trx: Trx, row: SitesTable, diskMB: number | null): Promise<void> {
    if (diskMB === null) requireDiskQuota(await context.quotas.of(trx, row.customer_id), null)
    const delta = (diskMB ?? 0) - (row.disk_mb ?? 0)
    if (delta > 0)
      await context.quotas.reserve(trx, { customerId: row.customer_id, amounts: { diskMB: delta } })
    if (delta !== 0) await context.usage.adjust(trx, row.customer_id, 'diskMB', delta)
  }

  /**
   * 409 `node_not_ready` when the site's node cannot serve now (its agent away, its port taken), `site_node_lacks`
   * when it cannot serve the site's type, else null. The node's name, reasons and what it lacks are told to platform
   * staff alone (`insight`, node-insight.ts); anyone else reads the code and the node's id, which the site shows.
   */
  async function nodeLacks(row: SitesTable, insight: boolean): Promise<Problem | null> {
    const node = row.node_id ? await nodes.find(row.node_id) : null
    const type = types.get(row.type)
    if (node && !node.ready)
      return new Problem(
        sitesProblems.node_not_ready,
        insight
          ? {
              detail: `The site's node ${node.name} cannot serve now: ${node.notReady.map((reason) => reason.message).join('; ')}.`,
              extensions: { nodeId: node.id, notReady: node.notReady },
            }
          : { extensions: { nodeId: node.id } },
      )
    if (!node || !type?.lacksOn) return null
    const lacks = await type.lacksOn(context.db, node)
    if (lacks.length === 0) return null
    if (!insight) return new Problem(sitesProblems.site_node_lacks, { extensions: { nodeId: node.id } })
    const setup = node.agent.capabilities?.setup
    return new Problem(sitesProblems.site_node_lacks, {
      detail: `The site's node ${node.name} lacks ${lacks.join(', ')}${setup ? ` (\`${setup}\` installs it)` : ''}.`,
      extensions: { nodeId: node.id, lacks },
    })
  }

  const lifecycleProblems = [sitesProblems.illegal_site_transition]

  return [
    defineRoute({
      method: 'PATCH',
      path: '/sites/:id',
      operationId: 'updateSite',
      summary: 'Change a site',
      description:
        'Changes the name, the domain or the site’s own limits, or clears `drift` (`drift: null`). `limits.cpuPercent`, `memoryMB` and `processes` (what the site may take over its plan’s and its node’s defaults; null: none of its own) are platform staff’s: anyone else gets 403 `limit_override_staff_only`. A new domain or limit is applied on the node by a `site.update` job (`jobId`); on a `failed` site it is kept and applied when the site is retried (`POST /sites/{id}/retry`). A new domain or limit waits while the site is `provisioning` (409 `site_busy`: once its job is done) and is refused while it is `deleting` (409 `site_busy`). The name changes in any state. A larger disk quota must fit within the customer’s disk limit (422 `disk_limit_reached`), and while that limit is set a quota cannot be removed (null: 422 `disk_quota_required`). Suspending is `POST /sites/{id}/suspend` (staff), not a change of `status` here.',
      scope: siteScopes.update,
      params: SiteParams,
      body: UpdateSiteBody,
      responses: { 200: { description: 'The site after the change.', schema: Site } },
      problems: [
        sitesProblems.site_busy,
        sitesProblems.invalid_domain,
        sitesProblems.domain_reserved,
        sitesProblems.domain_in_use,
        sitesProblems.disk_quota_required,
        sitesProblems.disk_limit_reached,
        sitesProblems.limit_override_staff_only,
        kernelProblems.customer_suspended,
      ],
      change: { action: 'site.update', event: 'site.updated' },
      prepare({ body }) {
        const domain = body.domain === undefined ? undefined : normaliseDomain(body.domain)
        if (domain === null) throw fieldProblem(sitesProblems.invalid_domain, 'body.domain')
        return { name: body.name?.trim(), domain }
      },
      async handler({ trx, params, body, view, caller, enqueueJob, prepared: { name, domain } }) {
        const row = await siteRows.find(trx, view, params.id)
        // Once the site is known to be the caller's to see (404 otherwise), before anything is written.
        refuseOwnLimitsUnlessStaff(caller, body.limits ?? {})
        const changes: Partial<SitesTable> = {}
        if (name !== undefined && name !== row.name) changes.name = name
        if (domain && domain !== row.domain) {
          const refused = await reserved(trx, domain)
          if (refused) throw refused
          if (await domainTaken(trx, domain)) throw fieldProblem(sitesProblems.domain_in_use, 'body.domain')
          changes.domain = domain
        }
        const diskMB = body.limits?.diskMB
        if (diskMB !== undefined && diskMB !== row.disk_mb) changes.disk_mb = diskMB
        const own = ownLimitChanges(row, body.limits ?? {})
        Object.assign(changes, own)
        const clearDrift = body.drift === null && row.drift_code !== null
        if (Object.keys(changes).length === 0 && !clearDrift) return unchanged(toSite(row))
        // A failed site takes the change now and its node at the retry, which provisions the site as it then is.
        const onNode =
          (changes.domain !== undefined || changes.disk_mb !== undefined || Object.keys(own).length > 0) &&
          row.status !== 'failed'
        if (onNode && row.status !== 'active' && row.status !== 'suspended')
          throw new Problem(sitesProblems.site_busy, {
            ...(row.status === 'deleting' ? { detail: 'The site is being deleted.' } : {}),
            extensions: { currentStatus: row.status },
          })
        if (onNode) {
          changes.job_id = await enqueueJob(trx, {
            kind: siteJobKinds.update,
            customerId: row.customer_id,
            subject: { type: 'site', id: row.id },
          })
        }
        if (changes.disk_mb !== undefined) await moveDisk(trx, row, changes.disk_mb)
        const updated = await updateSite(trx, row.id, { ...changes, ...(clearDrift ? noDrift : {}) })
        return recorded(toSite(updated), {
          details: {
            ...(changes.name !== undefined ? { name: changes.name } : {}),
            ...(changes.domain !== undefined ? { domain: changes.domain } : {}),
            ...(changes.disk_mb !== undefined ? { diskMB: changes.disk_mb } : {}),
            ...ownLimitDetails(own),
            ...(clearDrift ? { driftCleared: row.drift_code } : {}),
          },
        })
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sites/:id/suspend',
      operationId: 'suspendSite',
      summary: 'Suspend a site (staff)',
      description:
        'Staff (`site:suspend`), e.g. for abuse: an `active` site becomes `suspended` at once and a `site.suspend` job stops serving it on its node. A site billing already suspended (its customer is on hold) stays `suspended` and now carries the staff reason too (`suspendedByStaff`; no job): it stays suspended after billing lifts its hold, until staff unsuspend it. A site staff already suspended, or one `provisioning`, `failed` or `deleting`, is 409 `illegal_site_transition`.',
      scope: siteScopes.suspend,
      params: SiteParams,
      responses: { 200: { description: 'The suspended site.', schema: Site } },
      problems: lifecycleProblems,
      async handler(input) {
        return context.transaction(async (trx) => {
          const row = await siteRows.find(trx, input.view, input.params.id)
          const status = row.status as SiteStatus
          if (status === 'active') {
            const moved = await moveSite(trx, input, row, {
              to: 'suspended',
              jobKind: siteJobKinds.suspend,
              action: 'site.suspend',
              changes: { suspended_by_staff: 1 },
              details: { byStaff: true },
            })
            return toSite(moved)
          }
          if (status !== 'suspended' || row.suspended_by_staff === 1)
            throw illegalTransition(status, 'suspended')
          // Suspended by a hold: no transition and nothing for the node, but the staff reason outlives the hold.
          const updated = await updateSite(trx, row.id, { suspended_by_staff: 1 })
          await input.audit(trx, {
            action: 'site.suspend',
            subject: { type: 'site', id: row.id },
            customerId: row.customer_id,
            details: { from: status, to: status, byStaff: true },
          })
          await input.emit(trx, { kind: 'site.updated', customerId: row.customer_id, data: toSite(updated) })
          return toSite(updated)
        })
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sites/:id/unsuspend',
      operationId: 'unsuspendSite',
      summary: 'Unsuspend a site (staff)',
      description:
        'Staff (`site:suspend`): a `suspended` site becomes `active` at once and a `site.unsuspend` job serves it again. A site a hold on its customer covers (billing suspended it) is 409 `site_held`: unsuspend the subscription instead. Any other state is 409 `illegal_site_transition`.',
      scope: siteScopes.suspend,
      params: SiteParams,
      responses: { 200: { description: 'The active site.', schema: Site } },
      problems: [...lifecycleProblems, sitesProblems.site_held],
      async handler(input) {
        return context.transaction(async (trx) => {
          const row = await siteRows.find(trx, input.view, input.params.id)
          const holders = await suspensions.holdersOf(trx, {
            customerId: row.customer_id,
            kind: 'sites',
            id: row.id,
          })
          if (holders.length > 0)
            throw new Problem(sitesProblems.site_held, { extensions: { currentStatus: row.status, holders } })
          // Only a suspended site: a provisioning one becomes active by its job, not by staff.
          if (row.status !== 'suspended') throw illegalTransition(row.status as SiteStatus, 'active')
          const moved = await moveSite(trx, input, row, {
            to: 'active',
            jobKind: siteJobKinds.unsuspend,
            action: 'site.unsuspend',
            changes: { suspended_by_staff: 0 },
            details: { byStaff: true },
          })
          return toSite(moved)
        })
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sites/:id/retry',
      operationId: 'retrySite',
      summary: 'Provision a failed site again',
      description:
        'A `failed` site becomes `provisioning` again, as it now is (a domain or limit changed since included), and a new `site.provision` job (`jobId`) tries again; its `error` is cleared, and set again if this one fails. Answers 202 with the site. Any other state is 409 `illegal_site_transition`; a site whose node cannot serve now (its agent away, its port taken) is 409 `node_not_ready` with the node’s reasons, and one whose node lacks what its type needs (say, WordPress was removed) 409 `site_node_lacks`, naming what and the command that installs it.',
      scope: siteScopes.update,
      params: SiteParams,
      responses: { 202: { description: 'The site, `provisioning` again.', schema: Site } },
      problems: [
        ...lifecycleProblems,
        sitesProblems.node_not_ready,
        sitesProblems.site_node_lacks,
        kernelProblems.customer_suspended,
      ],
      async handler(input) {
        // What the node lacks is read before the transaction (the node directory reads outside it).
        const lacks = await nodeLacks(
          await siteRows.find(context.db, input.view, input.params.id),
          seesNodes(input.caller),
        )
        const site = await context.transaction(async (trx) => {
          const row = await siteRows.find(trx, input.view, input.params.id)
          if (row.status !== 'failed') throw illegalTransition(row.status as SiteStatus, 'provisioning')
          if (lacks) throw lacks
          const moved = await moveSite(trx, input, row, {
            to: 'provisioning',
            jobKind: siteJobKinds.provision,
            action: 'site.retry',
            changes: noError,
            details: { previousError: row.error_code },
          })
          return toSite(moved)
        })
        return new Reply(202, site)
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/sites/:id',
      operationId: 'deleteSite',
      summary: 'Delete a site',
      description:
        'An `active`, `suspended`, `failed` or `provisioning` site becomes `deleting`; the `site.delete` job (`jobId`) removes it from its node and then from the panel, and `site.deleted` is sent (then the site is 404). A provisioning under way, or waiting to try again, is cancelled: the deletion starts once it has stopped, within seconds. Answers 202 with the site; a site already `deleting` answers the same, with the deletion under way.',
      scope: siteScopes.delete,
      params: SiteParams,
      responses: { 202: { description: 'The site, now `deleting`.', schema: Site } },
      async handler(input) {
        const site = await context.transaction(async (trx) => {
          const row = await siteRows.find(trx, input.view, input.params.id)
          // Asked again (a client retrying): the deletion under way is the answer.
          if (row.status === 'deleting') return toSite(row)
          return toSite(await startSiteDeletion(trx, context, input, row))
        })
        return new Reply(202, site)
      },
    }),
  ]
}
