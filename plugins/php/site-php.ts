// A site's PHP as the plugin keeps it (its `php_sites` row) and answers it: the version and settings it set, laid
// over the defaults, beside what its node has and its plan allows; and the serving part that tells its node.

import { type Db, nowIso, type PluginContext, type Quotas } from '../../core/index.ts'
import type { Node, SiteServing } from '../nodes/contract.ts'
import { type SiteRef, type SiteServingPart, siteTypes } from '../sites/contract.ts'
import type { SitePhp } from './contract.ts'
import type { PhpSitesTable, PhpTables } from './migrations.ts'
import {
  allowedMaxima,
  capsOf,
  heldSettings,
  nodeSettings,
  type PhpPlanCaps,
  type PhpSettings,
  phpDefaults,
  phpPlanSetting,
  phpSettingNames,
} from './settings.ts'

/** The plugin's table through `db`. */
export const phpTables = (db: Db) => db.withTables<PhpTables>()

/** The site's row, or undefined (a `wordpress` site whose PHP was never changed). */
export function findPhpSite(db: Db, siteId: string): Promise<PhpSitesTable | undefined> {
  return phpTables(db).selectFrom('php_sites').selectAll().where('site_id', '=', siteId).executeTakeFirst()
}

/** The settings a row keeps (only names of the allowlist: a setting withdrawn since is dropped). */
export function ownSettingsOf(row: PhpSitesTable | undefined): PhpSettings {
  if (!row) return {}
  const parsed = JSON.parse(row.settings) as Record<string, unknown>
  return Object.fromEntries(
    Object.entries(parsed).filter(([name]) => (phpSettingNames as string[]).includes(name)),
  ) as PhpSettings
}

/** Writes the site's row (made when missing, with `htdocs/` its document root). */
export async function savePhpSite(
  db: Db,
  site: Pick<SiteRef, 'id' | 'customerId'>,
  values: { root?: string; version?: string | null; settings?: PhpSettings },
): Promise<void> {
  const before = await findPhpSite(db, site.id)
  const row: PhpSitesTable = {
    site_id: site.id,
    customer_id: site.customerId,
    root: values.root ?? before?.root ?? '',
    version: values.version !== undefined ? values.version : (before?.version ?? null),
    settings: JSON.stringify(values.settings ?? ownSettingsOf(before)),
    updated_at: nowIso(),
  }
  if (before) await phpTables(db).updateTable('php_sites').set(row).where('site_id', '=', site.id).execute()
  else await phpTables(db).insertInto('php_sites').values(row).execute()
}

/** The PHP versions `node` has, lowest first (an older agent's: its one PHP's major and minor). */
export function versionsOn(node: Node | null): string[] {
  const capabilities = node?.agent.capabilities
  if (!capabilities) return []
  if (capabilities.phpVersions) return [...capabilities.phpVersions]
  const own = capabilities.php ? /^(\d+\.\d+)/.exec(capabilities.php)?.[1] : undefined
  return own ? [own] : []
}

/** The caps the customer's plans put on PHP settings. */
export async function capsFor(db: Db, quotas: Quotas, customerId: string): Promise<PhpPlanCaps> {
  return capsOf((await quotas.settingsOf(db, customerId))[phpPlanSetting.name])
}

/** The answer of `GET /sites/{id}/php`. */
export async function sitePhpAnswer(
  db: Db,
  context: Pick<PluginContext, 'quotas'>,
  site: SiteRef,
  node: Node | null,
  jobId: string | null,
): Promise<SitePhp> {
  const row = await findPhpSite(db, site.id)
  const own = ownSettingsOf(row)
  const caps = await capsFor(db, context.quotas, site.customerId)
  const available = versionsOn(node)
  return {
    siteId: site.id,
    customerId: site.customerId,
    version: row?.version ?? available.at(-1) ?? null,
    ownVersion: row?.version ?? null,
    availableVersions: available,
    settings: heldSettings(own, caps).effective as SitePhp['settings'],
    own: phpSettingNames.filter((name) => own[name] !== undefined),
    defaults: { ...phpDefaults } as SitePhp['defaults'],
    allowed: allowedMaxima(caps),
    jobId,
  }
}

/**
 * The serving part `php`: a site's document root, PHP version and own settings, as its node takes them (what it did
 * not set is the node's default, the same as the answer's), with every setting its plan caps held at the cap
 * ({@link heldSettings}). A site whose type runs no PHP has none to set.
 */
export function phpServingPart(context: Pick<PluginContext, 'quotas' | 'extensionPoint'>): SiteServingPart {
  const types = context.extensionPoint(siteTypes)
  return {
    name: 'php',
    async read(db, site): Promise<SiteServing> {
      const row = await findPhpSite(db, site.id)
      // A type served by nginx alone (`static`, or another plugin's) has no PHP to set.
      if (types.get(site.type)?.serving?.php === false) return row?.root ? { root: row.root } : {}
      const caps = await capsFor(db, context.quotas, site.customerId)
      const settings = nodeSettings(heldSettings(ownSettingsOf(row), caps).sent)
      return {
        ...(row?.root ? { root: row.root } : {}),
        ...(row?.version ? { phpVersion: row.version } : {}),
        ...(Object.keys(settings).length > 0 ? { phpSettings: settings } : {}),
      }
    },
  }
}
