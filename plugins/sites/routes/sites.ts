// Site operations: create (starts provisioning) and read.

import {
  defineRoute,
  FieldErrors,
  fieldProblem,
  idPattern,
  kernelProblems,
  newId,
  nonBlank,
  nowIso,
  type PluginContext,
  Problem,
  Reply,
  type RouteDefinition,
  t,
  viewIncludes,
} from '../../../core/index.ts'
import { customerDirectory } from '../../customers/contract.ts'
import { Site, siteScopes, siteTypes } from '../contract.ts'
import { normaliseDomain } from '../domain.ts'
import { baseHandle, firstFreeHandle } from '../handle.ts'
import { sitesProblems } from '../problems.ts'
import { domainTaken, findSite, handlesLike, insertSite, toSite } from '../repository.ts'

const CreateSiteBody = t.Object(
  {
    customerId: t.String({ minLength: 1, maxLength: 64, description: 'The owning customer, `cus_…`.' }),
    name: t.String({
      minLength: 1,
      maxLength: 100,
      description: 'Name of the site; the handle is derived from it.',
    }),
    type: t.String({ minLength: 1, maxLength: 32, description: 'Kind of site, e.g. `wordpress`.' }),
    domain: t.String({ minLength: 1, maxLength: 253, description: 'Primary domain, e.g. `example.com`.' }),
  },
  { $id: 'CreateSiteBody' },
)

const SiteParams = t.Object({
  id: t.String({ pattern: idPattern('site'), description: 'Site id, `site_…`.' }),
})

/** The sites routes. */
export function siteRoutes(context: PluginContext): RouteDefinition[] {
  const types = context.extensionPoint(siteTypes)
  const customers = context.use(customerDirectory)
  return [
    defineRoute({
      method: 'POST',
      path: '/sites',
      operationId: 'createSite',
      summary: 'Create a site',
      description:
        'Creates the site in state `provisioning`; the handle is derived from the name and made unique.',
      scope: siteScopes.create,
      body: CreateSiteBody,
      responses: {
        201: { description: 'The new site.', schema: Site, headers: { Location: 'URL of the site.' } },
      },
      problems: Object.values(sitesProblems),
      async handler({ body, view, audit, emit }) {
        const name = nonBlank(body.name, 'body.name')
        const refusals = new FieldErrors()
        // Missing and invisible customers answer alike, so a limited token learns nothing about others.
        const customer = viewIncludes(view, body.customerId) ? await customers.find(body.customerId) : null
        if (!customer) refusals.add(sitesProblems.unknown_customer, 'body.customerId')
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
        if (!customer || !siteType || !domain) throw refusals.toProblem()
        const site = await context.transaction(async (trx) => {
          if (await domainTaken(trx, domain)) throw fieldProblem(sitesProblems.domain_in_use, 'body.domain')
          const base = baseHandle(name)
          const now = nowIso()
          const row = {
            id: newId('site'),
            customer_id: customer.id,
            handle: firstFreeHandle(base, await handlesLike(trx, base)),
            name,
            type: siteType.name,
            domain,
            status: 'provisioning',
            created_at: now,
            updated_at: now,
          }
          await insertSite(trx, row)
          const created = toSite(row)
          await audit(trx, {
            action: 'site.create',
            subject: { type: 'site', id: row.id },
            customerId: customer.id,
            details: { name, type: row.type, domain, handle: row.handle },
          })
          await emit(trx, { kind: 'site.created', customerId: customer.id, data: created })
          return created
        })
        return Reply.created(site, `/sites/${site.id}`)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/sites/:id',
      operationId: 'getSite',
      summary: 'Read a site',
      scope: siteScopes.read,
      params: SiteParams,
      responses: { 200: { description: 'The site.', schema: Site } },
      async handler({ params, view }) {
        const site = await findSite(context.db, params.id)
        if (!site || !viewIncludes(view, site.customerId)) throw new Problem(kernelProblems.not_found)
        return site
      },
    }),
  ]
}
