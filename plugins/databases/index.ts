// The databases plugin: database servers (staff), and customers' databases and users on them, provisioned on real
// MariaDB and PostgreSQL servers. docs/databases.md describes the model.

import { definePlugin } from '../../core/index.ts'
import { addConsolePages } from '../console/contract.ts'
import { customerDependents, suspensionHandlers } from '../customers/contract.ts'
import { nodeDependents, nodeModules, nodeReconcilers, nodeWatchers } from '../nodes/contract.ts'
import { siteDependents } from '../sites/contract.ts'
import { databaseBackupAccessService } from './backup-access.ts'
import { checkJobRequest, checkSchedule } from './check-schedule.ts'
import {
  Database,
  DatabaseUser,
  databaseBackupAccess,
  databaseScopes,
  databaseServerDependents,
  siteDatabases,
} from './contract.ts'
import { databaseCustomerDependent } from './customer-deletion.ts'
import { closeEngines, engineFor } from './engines/engines.ts'
import { databaseJobs } from './jobs.ts'
import { startDatabaseDeletion, startUserDeletion } from './lifecycle.ts'
import { databasesMigrations } from './migrations.ts'
import databasesNodeModule from './node/index.ts'
import { nodeServerWatcher } from './node-servers.ts'
import { databasesProblems } from './problems.ts'
import { databaseReconciler } from './reconcile.ts'
import { databasesOfSite, usersOfSite } from './repository.ts'
import { databaseServerRoutes } from './routes/database-servers.ts'
import { databaseUserRoutes } from './routes/database-users.ts'
import { databaseRoutes } from './routes/databases.ts'
import type { Engines } from './server-access.ts'
import { heldOnNode, heldOnServer } from './server-dependents.ts'
import { siteDatabasesService } from './site-databases.ts'
import { databaseSuspensionHandler } from './suspension.ts'

/** Who holds the database scopes on a customer: its hosting is the developers' work too. */
const hostingRoles = ['owner', 'admin', 'developer'] as const

/** Options of {@link databasesPlugin}. */
export interface DatabasesOptions {
  /**
   * How often sizes are measured and grants compared on every server, in milliseconds. Default 15 minutes; 0
   * turns the periodic check off.
   */
  readonly checkIntervalMs?: number
  /** The engines by name. Default: the MariaDB and PostgreSQL engines of `engines/`. */
  readonly engines?: Engines
  /**
   * Where on 127.0.0.1 the panel's local node runs a MariaDB of its own for its sites (the panel registers it as the
   * node's database server). Default null: none (agents have their own setting, NODE_DATABASE_PORT).
   */
  readonly nodeDatabasePort?: number | null
}

/** Databases and database users of customers, on database servers staff add. */
export const databasesPlugin = (options: DatabasesOptions = {}) => {
  const engines = options.engines ?? engineFor
  const intervalMs = options.checkIntervalMs ?? 15 * 60_000
  return definePlugin({
    name: 'databases',
    version: '0.1.0',
    description: 'Database servers, and customers’ MariaDB and PostgreSQL databases and users on them.',
    requires: ['customers', 'sites', 'nodes'],
    // Its console pages, when the installation has a console.
    enhances: ['console'],
    scopes: [
      { name: databaseScopes.read, description: 'Read databases and database users', roles: hostingRoles },
      {
        name: databaseScopes.manage,
        description: 'Create, change and delete databases and users',
        roles: hostingRoles,
      },
      {
        name: databaseScopes.serverRead,
        description: 'Read database servers (platform staff only)',
        staff: 'platform',
      },
      {
        name: databaseScopes.serverManage,
        description: 'Add and change database servers (platform staff only)',
        staff: 'platform',
      },
    ],
    events: [
      {
        kind: 'database.created',
        description: 'A database was created (it is `provisioning`).',
        payload: Database,
      },
      {
        kind: 'database.updated',
        description: 'A database changed state: `active` once on its server, `failed`, or `deleting`.',
        payload: Database,
      },
      {
        kind: 'database.deleted',
        description: 'A database was dropped from its server and the panel.',
        payload: Database,
      },
      {
        kind: 'database_user.created',
        description: 'A database user was created (it is `provisioning`).',
        payload: DatabaseUser,
      },
      {
        kind: 'database_user.updated',
        description: 'A database user changed: its grants, hosts, password, lock or state.',
        payload: DatabaseUser,
      },
      {
        kind: 'database_user.deleted',
        description: 'A database user was dropped from its server and the panel.',
        payload: DatabaseUser,
      },
      {
        kind: 'database_user.drifted',
        description:
          'The periodic check found the server’s grants of a user different from the panel’s (`drift`).',
        payload: DatabaseUser,
      },
    ],
    problems: databasesProblems,
    usage: [
      {
        name: 'databases',
        description: 'Databases.',
        quota: {
          description: 'How many databases the customer may have.',
          problem: databasesProblems.database_limit_reached,
        },
      },
      {
        name: 'databaseBytes',
        description: 'Size of the databases on their servers, in bytes, as last measured.',
      },
    ],
    migrations: databasesMigrations,
    extensionPoints: [databaseServerDependents],
    setup(context) {
      addConsolePages(context, import.meta.dir)
      // Site types that install applications (WordPress) have their site's database made through it.
      context.provide(siteDatabases, siteDatabasesService(context))
      // Backups dump and restore sites' databases on nodes with temporary logins made for each run; the periodic
      // check drops those a crash left behind.
      context.provide(databaseBackupAccess, databaseBackupAccessService(context, engines))
      // Each node with MariaDB runs one for its sites: the module declared once, the server registered as it reports.
      context
        .extensionPoint(nodeModules)
        .add({ module: databasesNodeModule, options: { port: options.nodeDatabasePort ?? null } })
      context.extensionPoint(nodeWatchers).add(nodeServerWatcher(context))
      // A rebuilt node's own server gets its databases back (empty): a site provisioned again fills its own.
      context.extensionPoint(nodeReconcilers).add(databaseReconciler(context, engines))
      // A server keeps what is on it; a node keeps what is on its own server, which goes with it once empty.
      for (const held of heldOnServer) context.extensionPoint(databaseServerDependents).add(held)
      for (const held of heldOnNode(context)) context.extensionPoint(nodeDependents).add(held)
      // A customer's logins are locked with it, and its databases removed with it.
      context.extensionPoint(suspensionHandlers).add(databaseSuspensionHandler(context))
      // A customer's deletion drops its databases and logins, each through its own job.
      context.extensionPoint(customerDependents).add(databaseCustomerDependent(context))
      // A site's databases go with it, and the logins its application had made: their deletions start in the
      // site's deletion job (rows already deleting are passed over, so a job run again starts none twice).
      const writers = { enqueueJob: context.enqueueJob, audit: context.audit, emit: context.emit }
      context.extensionPoint(siteDependents).add({
        name: 'databases',
        remove: (run, site) =>
          run.transaction(async (trx) => {
            const details = { reason: 'site deleted', siteId: site.id }
            for (const row of await usersOfSite(trx, site.id))
              await startUserDeletion(trx, writers, row, details)
            for (const row of await databasesOfSite(trx, site.id))
              await startDatabaseDeletion(trx, writers, row, details)
          }),
      })
    },
    jobs: (context) => databaseJobs(context, engines),
    start(context) {
      const stopChecks = intervalMs > 0 ? checkSchedule(context, intervalMs, checkJobRequest) : () => {}
      return async () => {
        stopChecks()
        if (!options.engines) await closeEngines()
      }
    },
    routes: (context) => [
      ...databaseServerRoutes(context, engines),
      ...databaseRoutes(context),
      ...databaseUserRoutes(context),
    ],
  })
}
