// The SFTP plugin: accounts that reach a site's files over SFTP (`/sites/{id}/sftp-users`, scope `site:files`),
// kept by the site's node, whose SSH server (the `sftp` node service) serves the SFTP subsystem only, in a sandbox
// of the site as the site's Unix user (docs/sftp.md).

import { definePlugin, resourceEvents } from '../../core/index.ts'
import { siteRecordParts } from '../backups/contract.ts'
import { addConsolePages } from '../console/contract.ts'
import { customerDependents } from '../customers/contract.ts'
import { nodeModules, nodeReconcilers } from '../nodes/contract.ts'
import { siteDependents } from '../sites/contract.ts'
import { SftpUser } from './contract.ts'
import { sftpCustomerDependent } from './customer-deletion.ts'
import { sftpMigrations } from './migrations.ts'
import sftpNodeModule from './node/index.ts'
import { sftpProblems } from './problems.ts'
import { sftpReconciler } from './reconcile.ts'
import { sftpRecordPart } from './record-part.ts'
import { deleteSiteAccounts } from './repository.ts'
import { sftpUserRoutes } from './routes/sftp-users.ts'

/** Options of {@link sftpPlugin}. */
export interface SftpOptions {
  /**
   * The port the local node's SSH server listens on (`SFTP_PORT`); 0 picks a free one. Absent (the default): the
   * local node runs none, and refuses accounts with `sftp_unavailable`. Remote nodes have their agent's setting.
   */
  readonly port?: number
  /** The address it listens on (`SFTP_LISTEN`). Default `0.0.0.0`. */
  readonly listen?: string
  /** How often the node checks live sessions against their account and site, in ms. Default 2 000. */
  readonly checkEveryMs?: number
}

/** SFTP accounts for sites, and the local node's SSH server. */
export const sftpPlugin = (options: SftpOptions = {}) =>
  definePlugin({
    name: 'sftp',
    version: '0.1.0',
    description: 'SFTP accounts for sites, served by an SSH server on each node that offers SFTP alone.',
    requires: ['customers', 'sites', 'nodes'],
    // Its console pages, when the installation has a console.
    enhances: ['console', 'backups'],
    events: resourceEvents('sftp_user', SftpUser, 'An SFTP account'),
    problems: sftpProblems,
    migrations: sftpMigrations,
    setup(context) {
      addConsolePages(context, import.meta.dir)
      // What it holds of a site goes into every backup's record of the site, when the installation has backups.
      context.extensionPoint(siteRecordParts).add(sftpRecordPart)
      // Remote nodes run the same module, with their agent's SFTP_PORT and SFTP_LISTEN.
      context.extensionPoint(nodeModules).add({
        module: sftpNodeModule,
        options: {
          port: options.port ?? null,
          ...(options.listen === undefined ? {} : { listen: options.listen }),
          ...(options.checkEveryMs === undefined ? {} : { checkEveryMs: options.checkEveryMs }),
        },
      })
      // A deleted site's accounts went with its home on the node; the panel forgets them in its deletion job.
      // A customer's deletion takes its accounts off their nodes.
      context.extensionPoint(customerDependents).add(sftpCustomerDependent(context))
      // A rebuilt node gets back the accounts that log in with keys.
      context.extensionPoint(nodeReconcilers).add(sftpReconciler(context))
      context.extensionPoint(siteDependents).add({
        name: 'sftp',
        remove: (run, site) => run.transaction((trx) => deleteSiteAccounts(trx, site.id)).then(() => {}),
      })
    },
    routes: sftpUserRoutes,
  })
