// The php plugin: the `php` and `static` site types (a document root, optionally a folder of `htdocs/`, served with
// the site's own PHP-FPM or by nginx alone) and every PHP site's version and `php.ini` settings
// (`GET/PATCH /sites/{id}/php`, `php:read`, `php:manage`), capped by plans (`phpSettings`) and given to nodes as a
// serving part. Its node module installs the two site applications.

import { definePlugin } from '../../core/index.ts'
import { restoreAdapters } from '../backups/contract.ts'
import { addConsolePages } from '../console/contract.ts'
import { nodeModules } from '../nodes/contract.ts'
import { siteDependents, siteServingParts, siteTypes } from '../sites/contract.ts'
import { phpScopes, SitePhp } from './contract.ts'
import { phpMigrations } from './migrations.ts'
import phpNodeModule from './node/index.ts'
import { phpProblems } from './problems.ts'
import { phpRestoreAdapter } from './restore-adapter.ts'
import { sitePhpRoutes } from './routes/site-php.ts'
import { phpPlanSetting } from './settings.ts'
import { phpServingPart, phpTables } from './site-php.ts'
import { phpSiteTypes } from './site-types.ts'

/** Who holds the PHP scopes on a customer: a site's PHP is the developers' work too. */
const hostingRoles = ['owner', 'admin', 'developer'] as const

/** `php` and `static` sites, and sites' PHP versions and settings. */
export const phpPlugin = () =>
  definePlugin({
    name: 'php',
    version: '0.1.0',
    description:
      'PHP and static sites (a document root, PHP through the site’s own PHP-FPM or nginx alone), and sites’ PHP versions and settings.',
    requires: ['sites', 'nodes'],
    enhances: ['console', 'backups'],
    scopes: [
      { name: phpScopes.read, description: 'Read sites’ PHP version and settings', roles: hostingRoles },
      { name: phpScopes.manage, description: 'Change sites’ PHP version and settings', roles: hostingRoles },
    ],
    events: [
      {
        kind: 'site_php.updated',
        description:
          'A site’s PHP version or settings changed (`PATCH /sites/{id}/php`): the data is its PHP after the change.',
        payload: SitePhp,
      },
    ],
    problems: phpProblems,
    planSettings: [phpPlanSetting],
    migrations: phpMigrations,
    setup(context) {
      addConsolePages(context, import.meta.dir)
      for (const type of phpSiteTypes(context)) {
        context.extensionPoint(siteTypes).add(type)
        // A clone, a staging copy and a push of the type copy its files, when the installation has backups.
        context.extensionPoint(restoreAdapters).add(phpRestoreAdapter(context, type.name))
      }
      context.extensionPoint(siteServingParts).add(phpServingPart(context))
      context.extensionPoint(nodeModules).add({ module: phpNodeModule })
      context.extensionPoint(siteDependents).add({
        name: 'php',
        remove: (run, site) =>
          run.transaction(async (trx) => {
            await phpTables(trx).deleteFrom('php_sites').where('site_id', '=', site.id).execute()
          }),
      })
    },
    routes: (context) => sitePhpRoutes(context),
  })
