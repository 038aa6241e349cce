// The sites plugin's public contract: the site schema, its scopes and events, and the site types extension point.

import {
  type Db,
  defineExtensionPoint,
  defineService,
  type Static,
  type TenantView,
  t,
} from '../../core/index.ts'

/** Lifecycle states of a site. `provisioning` is the state right after creation. */
export const siteStatuses = ['provisioning', 'active', 'suspended', 'failed', 'deleting'] as const

/** A site as the API returns it. */
export const Site = t.Object(
  {
    id: t.String({ description: 'Identifier, `site_…`.', examples: ['site_01JDQ3V6Y4T1ZK0M2N5P7R9S8W'] }),
    handle: t.String({ description: 'Short unique identifier derived from the name; may differ from it.' }),
    name: t.String({ description: 'Name of the site as given.' }),
    type: t.String({ description: 'Kind of site, one of the installed site types (`wordpress`).' }),
    domain: t.String({ description: 'Primary domain, lower-case ASCII (IDNs in punycode).' }),
    status: t.Union(
      siteStatuses.map((status) => t.Literal(status)),
      { description: 'Lifecycle state; `provisioning` right after creation.' },
    ),
    customerId: t.String({ description: 'The owning customer, `cus_…`.' }),
    nodeId: t.Union([t.String(), t.Null()], { description: 'The node the site runs on, `nod_…`.' }),
    jobId: t.Union([t.String(), t.Null()], {
      description:
        'The latest job working on the site (provisioning, update, suspension, deletion), `job_…`.',
    }),
    limits: t.Object(
      {
        diskMB: t.Union([t.Integer({ minimum: 0 }), t.Null()], {
          description: 'Disk quota in MB; null is unlimited.',
        }),
      },
      { description: 'Resource limits of the site.' },
    ),
    suspendedByStaff: t.Boolean({
      description:
        'Whether staff suspended the site (`POST /sites/{id}/suspend`, e.g. for abuse). Such a site stays `suspended` until staff unsuspend it, whatever billing does; a site billing suspended alone reads false.',
    }),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: 'Site' },
)
export type Site = Static<typeof Site>

/** What `site.deleted` carries: the site as it was. */
export const DeletedSite = t.Object(
  { id: t.String(), customerId: t.String(), domain: t.String(), handle: t.String() },
  { $id: 'DeletedSite' },
)

/** A kind of site another plugin can add (`wordpress` is built in). */
export interface SiteType {
  /** Lower-case name used in `type`: `wordpress`, `static`, `nodejs`. */
  readonly name: string
  readonly description: string
}

/** The registry of site types: plugins that require `sites` add to it in their setup. */
export const siteTypes = defineExtensionPoint<SiteType>({
  id: 'sites.siteTypes',
  owner: 'sites',
  description: 'Kinds of site that can be created.',
  keyOf: (type) => type.name,
})

/** A site as another plugin's resource under it needs it: whose it is and what state it is in. */
export interface SiteRef {
  readonly id: string
  readonly customerId: string
  readonly status: (typeof siteStatuses)[number]
  readonly domain: string
  readonly handle: string
  readonly nodeId: string | null
}

/**
 * Reads sites for plugins whose resources hang under a site (cron jobs, certificates, databases): a site the
 * caller may see, read through the given `db` (inside a transaction, its `trx`, so the answer and the change
 * commit together), or null when there is none or the view does not reach it.
 */
export interface SiteDirectory {
  find(db: Db, view: TenantView, id: string): Promise<SiteRef | null>
}

/** The sites plugin's directory service. */
export const siteDirectory = defineService<SiteDirectory>({
  id: 'sites.directory',
  owner: 'sites',
  description: 'Finds a site the caller may see, inside a transaction: its customer, state, domain and node.',
})

/** Scope names the plugin declares. */
export const siteScopes = {
  read: 'site:read',
  create: 'site:create',
  update: 'site:update',
  delete: 'site:delete',
  /** Staff: suspending and unsuspending sites by hand is an administrative act (abuse), not a customer's. */
  suspend: 'site:suspend',
} as const
