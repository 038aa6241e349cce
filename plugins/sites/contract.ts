// The sites plugin's public contract: the site schema, its scopes and events, and the site types extension point.

import {
  type AuditInput,
  type Caller,
  type Db,
  defineDependents,
  defineExtensionPoint,
  defineService,
  enumOf,
  type JobRequest,
  type JobRun,
  kernelProblems,
  Problem,
  type ProblemRef,
  type Static,
  type TenantView,
  type TObject,
  type Trx,
  t,
} from '../../core/index.ts'
import type { Node, SiteAppSpec, SiteServing } from '../nodes/contract.ts'
import { sitesProblems } from './problems.ts'

/** Lifecycle states of a site. `provisioning` is the state right after creation. */
export const siteStatuses = ['provisioning', 'active', 'suspended', 'failed', 'deleting'] as const

/** Why a site's provisioning failed, as the site shows it. */
export const SiteError = t.Object(
  {
    code: t.String({
      description:
        'A stable code: `no_database_server`, `database_failed`, `node_unreachable`, `node_error`, `wordpress_failed`, `wordpress_unavailable`, `cancelled`, or another the node or a plugin names (docs/sites.md lists them).',
      examples: ['no_database_server'],
    }),
    message: t.String({ description: 'What went wrong, in words an operator acts on.' }),
    jobId: t.Union([t.String(), t.Null()], {
      description: 'The job whose attempt failed, `job_…`: its events hold the steps.',
    }),
  },
  { $id: 'SiteError' },
)
export type SiteError = Static<typeof SiteError>

/** What reconciliation found wrong with a site on its node (docs/sites.md, "Drift"). */
export const SiteDrift = t.Object(
  {
    code: t.String({
      description:
        '`missing_on_node`: its node did not have it (a rebuilt node, a store restored) and it is being provisioned again (`jobId`), or, `jobId` null, is held back because its node held none of its sites (rebuilt, or its disk not mounted yet: cleared when the node holds it again, provisioned again when staff ask for the node’s reconciliation); `content_lost`: it was provisioned again from nothing and serves again, but the files it had are gone (a placeholder page, or a fresh install of its application over its database): restore them from a backup; `restore_failed`: provisioning it again gave up (`message` says why; its node answers nothing for it).',
      examples: ['content_lost'],
    }),
    message: t.String({ description: 'What was found and done, in words an operator acts on.' }),
    jobId: t.Union([t.String(), t.Null()], { description: 'The job that put it back, `job_…`.' }),
    detectedAt: t.String({ format: 'date-time', description: 'When reconciliation found it.' }),
  },
  { $id: 'SiteDrift' },
)
export type SiteDrift = Static<typeof SiteDrift>

/** A site as the API returns it. */
export const Site = t.Object(
  {
    id: t.String({ description: 'Identifier, `site_…`.', examples: ['site_01JDQ3V6Y4T1ZK0M2N5P7R9S8W'] }),
    handle: t.String({ description: 'Short unique identifier derived from the name; may differ from it.' }),
    name: t.String({ description: 'Name of the site as given.' }),
    type: t.String({ description: 'Kind of site, one of the installed site types (`wordpress`).' }),
    domain: t.String({ description: 'Primary domain, lower-case ASCII (IDNs in punycode).' }),
    status: enumOf(siteStatuses, { description: 'Lifecycle state; `provisioning` right after creation.' }),
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
        cpuPercent: t.Union([t.Integer({ minimum: 1 }), t.Null()], {
          description:
            'CPU staff set for this site alone, in percent of one core (100 = one core); null: none of its own, it takes its plan’s, else its node’s default (`GET /sites/{id}/limits` shows what applies).',
        }),
        memoryMB: t.Union([t.Integer({ minimum: 1 }), t.Null()], {
          description:
            'Memory staff set for this site alone, in MB (all its processes together); null: its plan’s, else its node’s default.',
        }),
        processes: t.Union([t.Integer({ minimum: 1 }), t.Null()], {
          description:
            'Processes (and threads) staff set for this site alone; null: its plan’s, else its node’s default.',
        }),
      },
      {
        description:
          'The site’s own limits: its disk quota, and what staff set for it alone over its plan and its node. The limits it runs under, and where each comes from, are `GET /sites/{id}/limits`.',
      },
    ),
    suspendedByStaff: t.Boolean({
      description:
        'Whether staff suspended the site (`POST /sites/{id}/suspend`, e.g. for abuse). Such a site stays `suspended` until staff unsuspend it, whatever billing does; a site billing suspended alone reads false.',
    }),
    error: t.Union([SiteError, t.Null()], {
      description:
        'Why the site’s provisioning failed: set when it is `failed`, and while it is still `provisioning` after an attempt that failed (the job tries again); null otherwise. `POST /sites/{id}/retry` provisions a failed site again.',
    }),
    drift: t.Union([SiteDrift, t.Null()], {
      description:
        'What reconciliation of its node found wrong with the site and could not put right by itself (`site.drifted`); null when the node holds it as the panel recorded it. Stays until `PATCH /sites/{id}` with `drift: null` (once its files were restored, say) or until a later finding replaces it.',
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

/** A kind of site another plugin can add (the `wordpress` plugin adds `wordpress`). */
export interface SiteType {
  /** Lower-case name used in `type`: `wordpress`, `static`, `nodejs`. */
  readonly name: string
  readonly description: string
  /** What a node and the installation need for it (`nginx`, `php`, `wordpress`, `mariadb`), for capabilities. */
  readonly requires?: readonly string[]
  /**
   * A field of the create body only this type reads (`wordpress: { adminUser, … }`), optional, and its schema;
   * the 201 answer carries what `created` answers under the same field.
   */
  readonly createOptions?: {
    readonly field: string
    readonly schema: TObject
    readonly answer: TObject
    /** The refusals `created` may answer with (listed on the create operation). */
    readonly problems?: readonly ProblemRef[]
  }
  /**
   * In the creating transaction, after the site row is written: keeps what the type needs (its own tables) and
   * answers what the 201 shows under `createOptions.field` (a secret shown once is fine: events never carry it).
   */
  created?(
    trx: Trx,
    site: CreatedSite,
    options: unknown,
  ): Promise<Readonly<Record<string, unknown>> | undefined>
  /**
   * In the provisioning job, before the node's driver runs (again on every attempt): what the node installs into
   * the site (its database made and ready first). Throwing fails the attempt.
   */
  app?(job: JobRun, site: CreatedSite): Promise<SiteAppSpec | undefined>
  /** In the transaction that makes a provisioned site `active`: forget what was only needed to install it. */
  provisioned?(trx: Trx, site: CreatedSite): Promise<void>
  /**
   * What `node` lacks to serve a site of this type, in words an operator acts on (`Debian’s wordpress package`),
   * read in the creating transaction (`db`). A new site goes to a node that lacks nothing; when every active node
   * lacks something, the create is refused at once (422 `site_type_unavailable` at `body.type`, naming it) rather
   * than leaving a job to fail. Default: every node serves it.
   */
  lacksOn?(db: Db, node: Node): Promise<readonly string[]>
  /**
   * How every site of the type is served, before the parts other plugins keep (`siteServingParts`) are laid over it:
   * a `static` type's `{ php: false }`. Default: served as sites are (PHP on, `htdocs/` the document root).
   */
  readonly serving?: SiteServing
}

/** A site as a site type's hooks see it. */
export interface CreatedSite {
  readonly id: string
  readonly customerId: string
  readonly name: string
  readonly domain: string
  readonly handle: string
  /** The node it is placed on. */
  readonly nodeId: string | null
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
  /** Its type (`wordpress`). */
  readonly type: string
  /** When it was created. */
  readonly createdAt: string
}

/**
 * Reads sites for plugins whose resources hang under a site (cron jobs, certificates, databases): a site the
 * caller may see, read through the given `db` (inside a transaction, its `trx`, so the answer and the change
 * commit together), or null when there is none or the view does not reach it.
 */
export interface SiteDirectory {
  find(db: Db, view: TenantView, id: string): Promise<SiteRef | null>
  /** The site serving `domain` (lower-case ASCII, as sites keep it), the same way. */
  findByDomain(db: Db, view: TenantView, domain: string): Promise<SiteRef | null>
  /**
   * The `active` sites `view` reaches, by id after `after` (from the first when null), at most `limit`: for work
   * over every running site (scheduled backups), walked page by page.
   */
  listActive(db: Db, view: TenantView, after: string | null, limit: number): Promise<readonly SiteRef[]>
}

/**
 * What goes with a site: each plugin whose records hang under sites adds a dependent here, and its `remove` runs in
 * the site's deletion job once the node dropped the site, before the site itself is forgotten (plugins set up later
 * first). Sites are deleted in any state, so no dependent keeps one (`blocking` is not asked).
 * @example context.extensionPoint(siteDependents).add({ name: 'cron-jobs', remove: (run, site) => run.transaction((trx) => removeTasksOf(trx, site.id)) })
 */
export const siteDependents = defineDependents<SiteRef>({
  id: 'sites.dependents',
  owner: 'sites',
  description: 'Records of other plugins under a site, removed in its deletion job.',
})

/**
 * A part of how a site is served that a plugin keeps in its own tables (its PHP settings, its page cache, its
 * redirects): read each time the site's node is told of the site (its provisioning, every update, its restore), and
 * laid over its type's `serving` in the order the parts were added. A part answers only the members it owns.
 */
export interface SiteServingPart {
  /** Unique: the plugin's name. */
  readonly name: string
  /** The members of `serving` this plugin gives `site`, read through `db`. */
  read(db: Db, site: SiteRef): Promise<SiteServing>
}

/** The registry of serving parts: plugins that require `sites` add to it in their setup. */
export const siteServingParts = defineExtensionPoint<SiteServingPart>({
  id: 'sites.servingParts',
  owner: 'sites',
  description: 'Parts of how a site is served that other plugins keep (PHP settings, page cache, redirects).',
  keyOf: (part) => part.name,
})

/**
 * Carries a change of a site's serving parts to its node: a plugin that changed what its part reads calls it in the
 * same transaction.
 */
export interface SiteServingChanges {
  /**
   * Starts the site's `site.update` job (its id answered; the site's `jobId` names it), which tells its node the
   * site as every part reads it when the job runs. A site `provisioning` or `failed` takes the change when it is
   * provisioned (no job: null). A site `deleting` is refused, 409 `site_busy`: list {@link siteServingProblems}.
   */
  apply(trx: Trx, site: SiteRef): Promise<string | null>
}

/** The refusals of {@link SiteServingChanges.apply}. */
export const siteServingProblems = [sitesProblems.site_busy] as const

/** The sites plugin's service carrying serving changes to nodes. */
export const siteServingChanges = defineService<SiteServingChanges>({
  id: 'sites.servingChanges',
  owner: 'sites',
  description: 'Tells a site’s node of a change to how the site is served (a serving part changed).',
})

/** The sites plugin's directory service. */
export const siteDirectory = defineService<SiteDirectory>({
  id: 'sites.directory',
  owner: 'sites',
  description:
    'Finds a site the caller may see, by id or domain, inside a transaction: its customer, state, domain and node.',
})

/** A site another plugin creates (a backup restored into a new site), as `POST /sites` takes it. */
export interface NewSite {
  readonly customerId: string
  readonly type: string
  readonly domain: string
  /** Default: the domain. */
  readonly name?: string
  /** Platform staff only, as `POST /sites` says. Default: placed as any new site. */
  readonly nodeId?: string
  /** Default: as `POST /sites` chooses without one. */
  readonly diskMB?: number | null
  /** What the audit entry says besides the site (`{ clonedFrom: 'site_…', backupId }`). */
  readonly details?: Readonly<Record<string, unknown>>
  /**
   * Whether the site may take a name under one of the sites plugin's `pluginDomains` (a staging copy on
   * `STAGING_DOMAIN`). Default false: such a name is 422 `domain_reserved`, as it is for `POST /sites`.
   */
  readonly onPluginDomain?: boolean
}

/** How a plugin's site creation is recorded: its caller's audit entry and job (a route's handler writers). */
export interface SiteCreationWriters {
  enqueueJob(trx: Trx, job: JobRequest): Promise<string>
  audit(trx: Trx, entry: AuditInput): Promise<void>
}

/**
 * Creates sites for other plugins through the same checks, quota and placement as `POST /sites` (its refusals, at
 * the same `body.…` fields), in their transaction, on behalf of `caller` (who must see the customer with
 * `site:create`); audited `site.create` through `writers` (the caller as actor), `site.created` emitted.
 */
export interface SiteCreation {
  create(trx: Trx, caller: Caller, request: NewSite, writers: SiteCreationWriters): Promise<Site>
}

/**
 * The refusals {@link SiteCreation.create} answers with (those of `POST /sites` but its body's shape and type
 * options): a route that creates sites through it lists them in its `problems`.
 */
export const siteCreationProblems = [
  kernelProblems.customer_deleting,
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
] as const

/** The sites plugin's creation service. */
export const siteCreation = defineService<SiteCreation>({
  id: 'sites.creation',
  owner: 'sites',
  description:
    'Creates a site as `POST /sites` does, for plugins that make sites (a backup restored as a clone).',
})

/** Scope names the plugin declares. */
export const siteScopes = {
  read: 'site:read',
  create: 'site:create',
  update: 'site:update',
  delete: 'site:delete',
  /** Staff: suspending and unsuspending sites by hand is an administrative act (abuse), not a customer's. */
  suspend: 'site:suspend',
  /** A site's files: the file manager and its SFTP accounts. */
  files: 'site:files',
  /** Running programs in a site: commands (exec), the interactive shell, WordPress operations. */
  shell: 'site:shell',
} as const

/**
 * The refusals for work inside a site that is not running (files, SFTP, commands): list them in the route's
 * `problems` and call {@link requireRunningSite}.
 */
export const runningSiteProblems = [sitesProblems.site_suspended, sitesProblems.site_not_ready] as const

/** Refuses work inside `site` unless it is `active`: 409 `site_suspended`, or `site_not_ready` with its `siteStatus`. */
export function requireRunningSite(site: SiteRef): void {
  if (site.status === 'active') return
  if (site.status === 'suspended') throw new Problem(sitesProblems.site_suspended)
  throw new Problem(sitesProblems.site_not_ready, { extensions: { siteStatus: site.status } })
}
