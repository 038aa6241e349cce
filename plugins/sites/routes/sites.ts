// Site operations: create (starts provisioning) and read.

import {
  defineRoute,
  enumOf,
  kernelProblems,
  nonBlankText,
  type PluginContext,
  preparedList,
  type RouteDefinition,
  type Static,
  t,
} from '../../../core/index.ts'
import { openCustomerProblems } from '../../customers/contract.ts'
import { nodeDirectory } from '../../nodes/contract.ts'
import { Site, siteScopes, siteStatuses, siteTypes } from '../contract.ts'
import { normaliseDomain } from '../domain.ts'
import { sitesProblems } from '../problems.ts'
import { siteRows, toSite } from '../repository.ts'
import type { DomainReservations } from '../reserved-domains.ts'
import { siteCreator } from '../site-creation.ts'

const CreateSiteBody = t.Object(
  {
    customerId: t.String({ minLength: 1, maxLength: 64, description: 'The owning customer, `cus_…`.' }),
    name: nonBlankText({ maxLength: 100, description: 'Name of the site; the handle is derived from it.' }),
    type: t.String({ minLength: 1, maxLength: 32, description: 'Kind of site, e.g. `wordpress`.' }),
    domain: t.String({ minLength: 1, maxLength: 253, description: 'Primary domain, e.g. `example.com`.' }),
    nodeId: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 64,
        description:
          'Platform staff only (403 `staff_only` otherwise): the node to place the site on, `nod_…`. It must take new sites (409 `node_not_accepting`), be ready (409 `node_not_ready`, with its reasons) and serve the type (422 `site_type_unavailable`). Default: the ready active node with the fewest sites that serves the type.',
      }),
    ),
    limits: t.Optional(
      t.Object(
        {
          diskMB: t.Optional(
            t.Union([t.Integer({ minimum: 0, maximum: 100_000_000 }), t.Null()], {
              description:
                'Disk quota in MB, at least 0; null for none (422 `disk_quota_required` while the customer’s disk is limited). Default: none; while the customer’s disk is limited, an even share of the free disk over its free site slots, and required (422 `disk_quota_required`) when its sites are unlimited (docs/billing.md).',
            }),
          ),
        },
        { description: 'Resource limits of the site.' },
      ),
    ),
  },
  { $id: 'CreateSiteBody' },
)

const ListSitesQuery = t.Object({
  customerId: t.Optional(t.String({ maxLength: 64, description: 'Only this customer’s sites.' })),
  status: t.Optional(enumOf(siteStatuses, { description: 'Only sites in this state.' })),
  type: t.Optional(t.String({ maxLength: 32, description: 'Only sites of this type.' })),
  domain: t.Optional(t.String({ maxLength: 253, description: 'Only the site with this domain.' })),
})

/** The sites list, compiled once per shape (which filters are set, the caller's kind of view). */
const sitesList = preparedList((db, view, _filters: Static<typeof ListSitesQuery>) =>
  siteRows.visible(db, view),
)

/** The sites routes. */
export function siteRoutes(context: PluginContext, reserved: DomainReservations): RouteDefinition[] {
  const types = context.extensionPoint(siteTypes)
  const nodes = context.use(nodeDirectory)
  const createSite = siteCreator(context, reserved)
  // The create body and its answer with the fields site types add (`wordpress`), each optional.
  const typeOptions = types
    .list()
    .flatMap((type) => (type.createOptions ? [{ type, ...type.createOptions }] : []))
  const createBody = t.Object(
    {
      ...CreateSiteBody.properties,
      ...Object.fromEntries(typeOptions.map((option) => [option.field, t.Optional(option.schema)])),
    },
    { $id: 'CreateSiteBody' },
  )
  const CreatedSiteAnswer = t.Object(
    {
      ...Site.properties,
      ...Object.fromEntries(typeOptions.map((option) => [option.field, t.Optional(option.answer)])),
    },
    { $id: 'CreatedSite' },
  )

  return [
    defineRoute({
      method: 'POST',
      path: '/sites',
      operationId: 'createSite',
      idempotent: true,
      summary: 'Create a site',
      description:
        'Creates the site in state `provisioning` on the node that takes it: the ready active node with the fewest sites among those that serve its type (or the `nodeId` staff chose); a node is ready when its agent is connected and it serves now (`GET /nodes`: `ready`, `notReady`), and none ready is refused at once (409 `no_node_ready`, naming each node with why to platform staff, the code alone to a customer’s caller), never left to a failing job or a placeholder. It starts the `site.provision` job (`jobId`); the site becomes `active` when it succeeds, `failed` when it runs out of attempts. The handle is derived from the name and made unique. The customer’s limits (its plans, or the installation’s defaults) must allow one more site, domain and the site’s disk (422 `site_limit_reached`, `domain_limit_reached`, `disk_limit_reached`, `disk_quota_required`, or `customer_suspended` while its subscriptions are suspended).',
      scope: siteScopes.create,
      body: createBody,
      // A type may answer a secret once (WordPress's generated admin password).
      showsSecret: true,
      responses: {
        201: {
          description: 'The new site, with what its type adds (shown once where it is a secret).',
          schema: CreatedSiteAnswer,
          headers: { Location: 'URL of the site.' },
        },
      },
      problems: [
        kernelProblems.unknown_customer,
        ...openCustomerProblems,
        sitesProblems.unknown_site_type,
        sitesProblems.options_of_other_type,
        sitesProblems.invalid_domain,
        sitesProblems.domain_reserved,
        sitesProblems.domain_in_use,
        sitesProblems.no_node_available,
        sitesProblems.no_node_ready,
        sitesProblems.unknown_node,
        sitesProblems.node_not_accepting,
        sitesProblems.node_not_ready,
        kernelProblems.staff_only,
        sitesProblems.site_type_unavailable,
        sitesProblems.disk_quota_required,
        sitesProblems.site_limit_reached,
        sitesProblems.domain_limit_reached,
        sitesProblems.disk_limit_reached,
        kernelProblems.customer_suspended,
        ...typeOptions.flatMap((option) => option.problems ?? []),
      ],
      change: {
        action: 'site.create',
        event: 'site.created',
        details: (site) => ({ name: site.name, type: site.type, domain: site.domain, handle: site.handle }),
        // The site alone: never what its type answered once (a password).
        payload: (site) => Object.fromEntries(Object.keys(Site.properties).map((key) => [key, site[key]])),
      },
      // The panel's own node, starting in this process, says first whether it serves (a second at most).
      prepare: () => nodes.localReported(),
      // One transaction: the key's claim, the checks, the site, its job, usage, audit entry and event, the answer.
      async handler({ trx, body, view, caller, enqueueJob }) {
        const { customerId, name, type, domain, nodeId, limits } = body
        const { site, extra } = await createSite(
          trx,
          { view, caller, enqueueJob },
          {
            customerId,
            name,
            type,
            domain,
            ...(nodeId === undefined ? {} : { nodeId }),
            ...(limits?.diskMB === undefined ? {} : { diskMB: limits.diskMB }),
            options: body as Record<string, unknown>,
          },
        )
        return extra ? { ...site, [extra.field]: extra.answer } : site
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/sites/:id',
      operationId: 'getSite',
      summary: 'Read a site',
      scope: siteScopes.read,
      params: { id: 'site' },
      responses: { 200: { description: 'The site.', schema: Site } },
      async handler({ params, view }) {
        return toSite(await siteRows.find(context.db, view, params.id))
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/sites',
      operationId: 'listSites',
      summary: 'List sites',
      description: 'Only sites of customers the caller may see, oldest first. Every filter narrows the list.',
      scope: siteScopes.read,
      query: ListSitesQuery,
      list: {
        item: Site,
        key: 'sites.id',
        toItem: toSite,
        filters: {
          customerId: 'sites.customer_id',
          status: 'sites.status',
          type: 'sites.type',
          domain: 'sites.domain',
        },
      },
      handler({ query, view }) {
        // Normalised before the list sees it: the list binds values, it cannot compute with them.
        const filters =
          query.domain === undefined
            ? query
            : { ...query, domain: normaliseDomain(query.domain) ?? query.domain }
        return sitesList.of(context.db, view, filters)
      },
    }),
  ]
}
