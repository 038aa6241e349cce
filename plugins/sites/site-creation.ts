// Creating a site: the checks, quota and placement of `POST /sites`, written once for the route and for plugins that
// create sites themselves (a backup restored into a new site) through the `sites.creation` service.

import {
  type Caller,
  FieldErrors,
  fieldProblem,
  kernelProblems,
  newId,
  nowIso,
  type PluginContext,
  Problem,
  type TenantView,
  type Trx,
} from '../../core/index.ts'
import { assertCustomerOpen, customerDirectory } from '../customers/contract.ts'
import { nodeDirectory } from '../nodes/contract.ts'
import {
  type NewSite,
  type Site,
  type SiteCreation,
  type SiteCreationWriters,
  siteScopes,
  siteTypes,
} from './contract.ts'
import { newSiteDiskQuota } from './disk-quota.ts'
import { normaliseDomain } from './domain.ts'
import { baseHandle, firstFreeHandle } from './handle.ts'
import { noDrift, siteJobKinds } from './jobs.ts'
import type { SitesTable } from './migrations.ts'
import { seesNodes } from './node-insight.ts'
import { placeSite } from './placement.ts'
import { sitesProblems } from './problems.ts'
import { domainTaken, handlesLike, insertSite, toSite } from './repository.ts'
import type { DomainReservations } from './reserved-domains.ts'
import { noOwnLimits } from './site-limits.ts'

/** What creating a site answers: the site, and what its type answered under its options' field. */
export interface CreatedSiteAnswer {
  readonly site: Site
  /** The type's options field and its answer (`wordpress`, `{ adminUser, adminPassword }`), when it has one. */
  readonly extra: { readonly field: string; readonly answer: Readonly<Record<string, unknown>> } | null
}

/** Who creates: the caller's view and standing (whether it may choose a node), and how it starts the job. */
export interface CreatingCaller {
  readonly view: TenantView
  readonly caller: Caller
  enqueueJob: SiteCreationWriters['enqueueJob']
}

/**
 * Creates a site in `trx` as `POST /sites` does: customer, type, options and domain checked (422 at `body.…`), the
 * node placed, the customer's limits reserved, the row and its `site.provision` job written, usage counted, the
 * type's `created` hook run. Auditing and the event are the caller's (the route's change, or the service's).
 */
export function siteCreator(context: PluginContext, reserved: DomainReservations) {
  const types = context.extensionPoint(siteTypes)
  const customers = context.use(customerDirectory)
  const nodes = context.use(nodeDirectory)

  /** The disk quota of a new site (disk-quota.ts), checked with the rest of the customer's limits in `trx`. */
  async function reserveSite(trx: Trx, customerId: string, asked: number | null | undefined) {
    // Worked out from the quota as the check reads it: one read of the customer's limits and use.
    const chosen: { diskMB: number | null } = { diskMB: null }
    await context.quotas.reserve(trx, {
      customerId,
      amounts: (quota) => {
        chosen.diskMB = newSiteDiskQuota(quota, asked)
        return { sites: 1, domains: 1, diskMB: chosen.diskMB ?? 0 }
      },
    })
    return chosen.diskMB
  }

  return async function createSite(
    trx: Trx,
    who: CreatingCaller,
    body: NewSite & { readonly options?: Readonly<Record<string, unknown>> },
  ): Promise<CreatedSiteAnswer> {
    const typeOptions = types
      .list()
      .flatMap((type) => (type.createOptions ? [{ type, ...type.createOptions }] : []))
    const name = (body.name ?? body.domain).trim()
    const refusals = new FieldErrors()
    // Missing and invisible customers answer alike, so a limited token learns nothing about others.
    const customer = await customers.find(trx, who.view, body.customerId)
    if (!customer) refusals.add(kernelProblems.unknown_customer, 'body.customerId')
    else assertCustomerOpen(customer)
    const siteType = types.get(body.type)
    if (!siteType) {
      const known = types
        .list()
        .map((type) => type.name)
        .join(', ')
      refusals.add(sitesProblems.unknown_site_type, 'body.type', `must be one of: ${known}`)
    }
    const domain = normaliseDomain(body.domain)
    if (!domain) refusals.add(sitesProblems.invalid_domain, 'body.domain')
    // Options only another type reads would be dropped silently: refused instead.
    for (const option of typeOptions)
      if (option.type !== siteType && body.options?.[option.field] !== undefined)
        refusals.add(
          sitesProblems.options_of_other_type,
          `body.${option.field}`,
          `is for sites of type ${option.type.name}`,
        )
    if (!customer || !siteType || !domain || refusals.hasAny()) throw refusals.toProblem()
    const refused = await reserved(trx, domain, { onPluginDomain: body.onPluginDomain === true })
    if (refused) throw refused
    // Choosing the node is staff's: customers' callers never learn what nodes there are.
    const insight = seesNodes(who.caller)
    if (body.nodeId !== undefined && !insight)
      throw new Problem(kernelProblems.staff_only, {
        detail: 'Only platform staff choose the node of a site (`nodeId`).',
      })
    const nodeId = await placeSite(trx, nodes, siteType, { nodeId: body.nodeId, insight })
    if (await domainTaken(trx, domain)) throw fieldProblem(sitesProblems.domain_in_use, 'body.domain')
    // In the creating transaction: concurrent creates for the customer's last slot cannot both pass.
    const diskMB = await reserveSite(trx, customer.id, body.diskMB)
    const base = baseHandle(name)
    const now = nowIso()
    const row: SitesTable = {
      id: newId('site'),
      customer_id: customer.id,
      handle: firstFreeHandle(base, await handlesLike(trx, base)),
      name,
      type: siteType.name,
      domain,
      status: 'provisioning',
      node_id: nodeId,
      job_id: null,
      disk_mb: diskMB,
      suspended_by_staff: 0,
      error_code: null,
      error_message: null,
      error_job_id: null,
      ...noDrift,
      ...noOwnLimits,
      created_at: now,
      updated_at: now,
    }
    row.job_id = await who.enqueueJob(trx, {
      kind: siteJobKinds.provision,
      customerId: customer.id,
      subject: { type: 'site', id: row.id },
    })
    await insertSite(trx, row)
    await context.usage.adjust(trx, customer.id, 'sites', 1)
    await context.usage.adjust(trx, customer.id, 'domains', 1)
    if (diskMB) await context.usage.adjust(trx, customer.id, 'diskMB', diskMB)
    const site = toSite(row)
    const field = siteType.createOptions?.field
    const options = field ? body.options?.[field] : undefined
    const answer = await siteType.created?.(trx, { ...site, customerId: row.customer_id }, options)
    return { site, extra: field && answer ? { field, answer } : null }
  }
}

/** The `sites.creation` service: {@link siteCreator} with the audit entry and event the route's change writes. */
export function siteCreationService(context: PluginContext, reserved: DomainReservations): SiteCreation {
  const create = siteCreator(context, reserved)
  return {
    async create(trx, caller, request, writers) {
      const view = caller.viewFor(siteScopes.create)
      const { site } = await create(trx, { view, caller, enqueueJob: writers.enqueueJob }, request)
      await writers.audit(trx, {
        action: 'site.create',
        subject: { type: 'site', id: site.id },
        customerId: site.customerId,
        details: {
          name: site.name,
          type: site.type,
          domain: site.domain,
          handle: site.handle,
          ...request.details,
        },
      })
      // The event is the sites plugin's kind: put in the outbox through its own context.
      await context.emit(trx, { kind: 'site.created', customerId: site.customerId, data: site })
      return site
    },
  }
}
