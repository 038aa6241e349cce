// A site's PHP: `GET /sites/{id}/php` (its version and settings, effective, with what its node has and its plan
// allows) and `PATCH` (a version among its node's, settings from the allowlist within its plan's caps), carried to
// its node by a `site.update` job started in the same transaction.

import {
  type Db,
  defineRoute,
  fieldProblem,
  orNotFound,
  type PluginContext,
  Problem,
  type RouteDefinition,
  recorded,
  t,
  unchanged,
} from '../../../core/index.ts'
import { nodeDirectory } from '../../nodes/contract.ts'
import {
  type SiteRef,
  siteDirectory,
  siteServingChanges,
  siteServingProblems,
  siteTypes,
} from '../../sites/contract.ts'
import { phpScopes, SitePhp } from '../contract.ts'
import { phpProblems } from '../problems.ts'
import { checkedSettings, PhpSettingsBody, phpSettingNames } from '../settings.ts'
import { capsFor, findPhpSite, ownSettingsOf, savePhpSite, sitePhpAnswer, versionsOn } from '../site-php.ts'

const SitePhpBody = t.Object(
  {
    version: t.Optional(
      t.Union([t.String({ maxLength: 8 }), t.Null()], {
        description:
          'The PHP version the site runs (`8.2`), one of `availableVersions` (422 `php_version_unavailable` otherwise); null: its node’s default.',
      }),
    ),
    settings: t.Optional(PhpSettingsBody),
  },
  { $id: 'SitePhpBody' },
)

const settingProblems = [
  phpProblems.invalid_php_size,
  phpProblems.php_setting_out_of_range,
  phpProblems.php_setting_over_plan,
  phpProblems.post_max_size_below_upload,
]

/** The routes under `/sites/{id}/php`. */
export function sitePhpRoutes(context: PluginContext): RouteDefinition[] {
  const sites = context.use(siteDirectory)
  const nodes = context.use(nodeDirectory)
  // Through the request's own db (its transaction, for a change): SQLite's one writer would wait on itself.
  const nodeOf = (site: SiteRef, db: Db) =>
    site.nodeId ? nodes.find(site.nodeId, db) : Promise.resolve(null)

  /** The site, refused when its type serves it without PHP. */
  const phpSite = (site: SiteRef) => {
    if (context.extensionPoint(siteTypes).get(site.type)?.serving?.php === false)
      throw new Problem(phpProblems.site_without_php, { extensions: { siteType: site.type } })
    return site
  }

  return [
    defineRoute({
      method: 'GET',
      path: '/sites/:id/php',
      operationId: 'getSitePhp',
      summary: 'Read a site’s PHP version and settings',
      description:
        'The PHP version the site runs and every setting of the allowlist as it runs with it (its own, else the default), which it set itself (`own`), the defaults, the versions its node has and, per setting, the highest value its plan allows. A site served without PHP (`static`) is 409 `site_without_php`.',
      scope: phpScopes.read,
      params: { id: 'site' },
      responses: { 200: { description: 'The site’s PHP.', schema: SitePhp } },
      problems: [phpProblems.site_without_php],
      async handler({ db, params, view }) {
        const site = phpSite(orNotFound(await sites.find(db, view, params.id)))
        return sitePhpAnswer(db, context, site, await nodeOf(site, db), null)
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/sites/:id/php',
      operationId: 'updateSitePhp',
      summary: 'Change a site’s PHP version or settings',
      description:
        'Changes the version (one its node has) and the settings given (others stay; null takes the default again), each checked with its own code at `body.settings.<name>`: a size like `256M` (`invalid_php_size`), within the setting’s range (`php_setting_out_of_range`) and its plan’s cap (`php_setting_over_plan`), `post_max_size` at least `upload_max_filesize`. Nothing is kept of a refused request. The change reaches the node in the `site.update` job the answer names (`jobId`): the site’s PHP-FPM configuration is tested (`php-fpm -t`) before its master reloads, and a configuration the node refuses leaves the site served as it was (the job fails, saying why).',
      scope: phpScopes.manage,
      params: { id: 'site' },
      body: SitePhpBody,
      responses: { 200: { description: 'The site’s PHP after the change.', schema: SitePhp } },
      problems: [
        phpProblems.site_without_php,
        phpProblems.php_version_unavailable,
        ...settingProblems,
        ...siteServingProblems,
      ],
      change: {
        action: 'site_php.update',
        event: 'site_php.updated',
        subject: (answer) => ({ type: 'site', id: String(answer.siteId) }),
      },
      async handler({ trx, params, body, view }) {
        const site = phpSite(orNotFound(await sites.find(trx, view, params.id)))
        const node = await nodeOf(site, trx)
        const row = await findPhpSite(trx, site.id)
        const before = { version: row?.version ?? null, settings: ownSettingsOf(row) }
        let version = before.version
        if (body.version !== undefined) {
          const available = versionsOn(node)
          if (body.version !== null && !available.includes(body.version))
            throw fieldProblem(
              phpProblems.php_version_unavailable,
              'body.version',
              `The site’s node has PHP ${available.join(', ') || '(none it said)'}, not ${body.version}.`,
            )
          version = body.version
        }
        const caps = await capsFor(trx, context.quotas, site.customerId)
        const settings = checkedSettings(before.settings, body.settings ?? {}, caps)
        const same =
          version === before.version &&
          phpSettingNames.every((name) => settings[name] === before.settings[name])
        if (same) return unchanged(await sitePhpAnswer(trx, context, site, node, null))
        await savePhpSite(trx, site, { version, settings })
        const jobId = await context.use(siteServingChanges).apply(trx, site)
        return recorded(await sitePhpAnswer(trx, context, site, node, jobId), {
          customerId: site.customerId,
          details: { version, settings, before },
        })
      },
    }),
  ]
}
