// The sites plugin: sites of customers, WordPress first. Copy this plugin's layout to write your own.

import { definePlugin } from '../../core/index.ts'
import { addConsolePages } from '../console/contract.ts'
import { customerDependents, suspensionHandlers } from '../customers/contract.ts'
import { nodeDependents, nodeReconcilers, nodeWatchers, siteLocators } from '../nodes/contract.ts'
import {
  DeletedSite,
  Site,
  siteCreation,
  siteDependents,
  siteDirectory,
  siteScopes,
  siteServingChanges,
  siteServingParts,
  siteTypes,
} from './contract.ts'
import { siteCustomerDependent } from './customer-deletion.ts'
import { siteJobs } from './jobs.ts'
import { SiteLimitReached } from './limit-watch.ts'
import {
  defaultLimitsCheckIntervalMs,
  limitsCheckJob,
  limitsCheckSchedule,
  limitsWatcher,
} from './limits-check.ts'
import { sitesMigrations } from './migrations.ts'
import { sitesOnNode } from './node-dependent.ts'
import { sitesProblems } from './problems.ts'
import { siteReconciler } from './reconcile.ts'
import { findSite, findSiteByDomain, listActiveSites, locateSites } from './repository.ts'
import { domainReservations } from './reserved-domains.ts'
import { siteLifecycleRoutes } from './routes/site-lifecycle.ts'
import { siteResourceRoutes } from './routes/site-resources.ts'
import { siteRoutes } from './routes/sites.ts'
import { siteServingChangesService } from './serving-changes.ts'
import { siteCreationService } from './site-creation.ts'
import { phpPlanSetting, siteResourceLimits } from './site-limits.ts'
import { siteSuspensionHandler } from './suspension.ts'

/** Who holds the site scopes on a customer: its hosting is the developers' work too. */
const hostingRoles = ['owner', 'admin', 'developer'] as const

/** Options of {@link sitesPlugin}. */
export interface SitesOptions {
  /**
   * Register a plain `wordpress` site type (a placeholder site, no application installed). Default true; the
   * standard installation turns it off for the wordpress plugin's, which installs WordPress with its database.
   */
  readonly wordpress?: boolean
  /**
   * The host names the panel is reached at (lower case; the standard host gives `PUBLIC_URL`'s): no site may take
   * one, or a name under one (422 `domain_reserved`), nor a brand's sign-in host name. Default none.
   * @example { panelHostnames: ['panel.example.com'] }
   */
  readonly panelHostnames?: readonly string[]
  /**
   * Domains (lower case) whose names only sites other plugins make with `onPluginDomain` may take: the standard
   * installation gives `STAGING_DOMAIN`, whose names are staging copies'. `POST /sites`, a domain change and other
   * creations are 422 `domain_reserved` there. Default none.
   */
  readonly pluginDomains?: readonly string[]
  /**
   * How often the limits check runs (ms): it applies changed limits (a plan's, the node's defaults) to sites and
   * sends `site.limitReached` for sites that keep hitting one. Default 300 000 (5 minutes); 0 turns the schedule off
   * (a change of a node's defaults still runs it for that node).
   */
  readonly limitsCheckIntervalMs?: number
}

/** Sites: create and read sites; other plugins add site types through `sites.siteTypes`. */
export const sitesPlugin = (options: SitesOptions = {}) =>
  definePlugin({
    name: 'sites',
    version: '0.1.0',
    description: 'Sites of customers (WordPress and other site types), their domains and lifecycle.',
    requires: ['brands', 'customers', 'nodes'],
    // Its console pages, when the installation has a console.
    enhances: ['console'],
    scopes: [
      { name: siteScopes.read, description: 'Read sites', roles: hostingRoles },
      { name: siteScopes.create, description: 'Create sites', roles: hostingRoles },
      { name: siteScopes.update, description: 'Update sites', roles: hostingRoles },
      { name: siteScopes.delete, description: 'Delete sites', roles: hostingRoles },
      { name: siteScopes.suspend, description: 'Suspend and unsuspend sites by hand (abuse)', staff: true },
      {
        name: siteScopes.files,
        description: 'Read and change a site’s files: the file manager and SFTP accounts',
        roles: hostingRoles,
      },
      {
        name: siteScopes.shell,
        description: 'Run programs in a site: commands, the interactive shell and WordPress operations',
        roles: hostingRoles,
      },
    ],
    events: [
      { kind: 'site.created', description: 'A site was created (it is `provisioning`).', payload: Site },
      {
        kind: 'site.updated',
        description:
          'A site changed: its state (`active`, `suspended`, `failed`, `deleting`), name, domain, limits, or staff suspension (`suspendedByStaff`).',
        payload: Site,
      },
      {
        kind: 'site.drifted',
        description:
          'Reconciliation found the site not as recorded on its node and could not simply put it right: missing there (`drift.code` `missing_on_node`, provisioned again), or provisioning it again gave up (`restore_failed`). `drift` says what and why.',
        payload: Site,
      },
      {
        kind: 'site.limitReached',
        description:
          'A site keeps hitting one of its limits (`kind`: `cpu`, `memory`, `processes` or `disk`): its node counted more hits at consecutive readings of the limits check (every few minutes). Sent at most once per site and kind in 6 hours; `GET /sites/{id}/resources` has the figures.',
        payload: SiteLimitReached,
      },
      {
        kind: 'site.deleted',
        description: 'A site was removed from its node and from the panel.',
        payload: DeletedSite,
      },
    ],
    problems: sitesProblems,
    usage: [
      {
        name: 'sites',
        description: 'Sites.',
        quota: {
          description: 'How many sites the customer may have.',
          problem: sitesProblems.site_limit_reached,
        },
      },
      {
        name: 'domains',
        description: 'Domains served by sites (each site has one).',
        quota: {
          description: 'How many domains the customer’s sites may serve (each site has one).',
          problem: sitesProblems.domain_limit_reached,
        },
      },
      {
        name: 'diskMB',
        description: 'Disk quota given to sites, in MB (sites without one count 0).',
        quota: {
          description:
            'Disk, in MB, the customer’s sites may be given in total (the sum of their `limits.diskMB`).',
          problem: sitesProblems.disk_limit_reached,
        },
      },
    ],
    // A plan's `cpuPercent`, `memoryMB` and `processes` are each site's (a plan's `diskMB` is the customer's total).
    resourceLimits: siteResourceLimits,
    // What a plan relaxes of PHP's hardening for its sites (`php.allowFunctions`).
    planSettings: [phpPlanSetting],
    migrations: sitesMigrations,
    extensionPoints: [siteTypes, siteDependents, siteServingParts],
    setup(context) {
      addConsolePages(context, import.meta.dir)
      if (options.wordpress !== false) {
        context.extensionPoint(siteTypes).add({ name: 'wordpress', description: 'A WordPress site.' })
      }
      // Traffic a node reports is counted for the site's customer, and only for sites on that node.
      context
        .extensionPoint(siteLocators)
        .add({ name: 'sites', locate: (ids) => locateSites(context.db, ids) })
      // What a node lacks of its sites (a rebuilt node) is provisioned again; what it holds unknown is reported.
      context.extensionPoint(nodeReconcilers).add(siteReconciler(context))
      // A node that holds sites is not deleted.
      context.extensionPoint(nodeDependents).add(sitesOnNode)
      // A change of a node's defaults for its sites reaches them through the limits check.
      context.extensionPoint(nodeWatchers).add(limitsWatcher(context))
      // A customer's sites are suspended with it (billing holds), without sites knowing who holds it.
      context.extensionPoint(suspensionHandlers).add(siteSuspensionHandler(context))
      // A customer's deletion deletes its sites, each through its own deletion job.
      context.extensionPoint(customerDependents).add(siteCustomerDependent(context))
      // Plugins whose resources hang under a site find it here, in their own transaction.
      context.provide(siteDirectory, {
        find: findSite,
        findByDomain: findSiteByDomain,
        listActive: listActiveSites,
      })
      // Plugins that keep a part of how sites are served (PHP settings, a page cache) carry their changes to nodes.
      context.provide(siteServingChanges, siteServingChangesService(context))
      // Plugins that make sites (a backup restored into a new one) go through the API's own checks.
      context.provide(
        siteCreation,
        siteCreationService(
          context,
          domainReservations(context, options.panelHostnames ?? [], options.pluginDomains ?? []),
        ),
      )
    },
    jobs: (context) => [...siteJobs(context), limitsCheckJob(context)],
    routes: (context) => {
      const reserved = domainReservations(context, options.panelHostnames ?? [], options.pluginDomains ?? [])
      return [
        ...siteRoutes(context, reserved),
        ...siteLifecycleRoutes(context, reserved),
        ...siteResourceRoutes(context),
      ]
    },
    start(context) {
      const intervalMs = options.limitsCheckIntervalMs ?? defaultLimitsCheckIntervalMs
      return intervalMs > 0 ? limitsCheckSchedule(context, intervalMs) : undefined
    },
    capabilities: (context) => ({
      siteTypes: context
        .extensionPoint(siteTypes)
        .list()
        .map(({ name, description, requires }) => ({ name, description, requires: requires ?? [] })),
    }),
  })
