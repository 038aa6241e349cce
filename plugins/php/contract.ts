// The php plugin's contract: its scopes, the `php` and `static` site types' names, and a site's PHP as the API
// answers it (`GET /sites/{id}/php`).

import { type Static, t } from '../../core/index.ts'
import { PhpSettingsAnswer, phpSettingNames } from './settings.ts'

/** The php plugin's scopes: reading and changing a site's PHP version and settings. */
export const phpScopes = { read: 'php:read', manage: 'php:manage' } as const

/** The site types the plugin adds. */
export const phpSiteTypeNames = { php: 'php', static: 'static' } as const

/** What the plan allows of one setting. */
const AllowedSetting = t.Object({
  maximum: t.Union([t.Number(), t.Null()], {
    description:
      'The highest value the site may set, in the setting’s unit (MB for sizes); null for booleans.',
  }),
  cap: t.Union([t.String(), t.Null()], {
    description:
      'The plan cap that sets `maximum` (`phpSettings.maxMemoryLimitMB`); null: the setting’s own range.',
  }),
})

/** A site's PHP: its version and settings, effective, with what it may choose. */
export const SitePhp = t.Object(
  {
    siteId: t.String({ description: '`site_…`' }),
    customerId: t.String({ description: '`cus_…`' }),
    version: t.Union([t.String(), t.Null()], {
      description:
        'The PHP version the site runs (`8.2`): its own choice, else its node’s default (the highest it has); null when the node never said.',
    }),
    ownVersion: t.Union([t.String(), t.Null()], {
      description: 'The version the site chose; null: it follows its node’s default.',
    }),
    availableVersions: t.Array(t.String(), {
      description:
        'The PHP versions the site’s node has (its capabilities’ `phpVersions`): what `version` may be.',
    }),
    settings: PhpSettingsAnswer,
    own: t.Array(t.Union(phpSettingNames.map((name) => t.Literal(name))), {
      description: 'The settings the site set itself; the others are their defaults.',
    }),
    defaults: PhpSettingsAnswer,
    allowed: t.Object(Object.fromEntries(phpSettingNames.map((name) => [name, AllowedSetting])), {
      description: 'By setting: the highest value it may take, and the plan cap that sets it.',
    }),
    jobId: t.Union([t.String(), t.Null()], {
      description:
        'After a change: the `site.update` job carrying it to the node (null when the site takes it at its provisioning, or nothing changed).',
    }),
  },
  { $id: 'SitePhp' },
)
export type SitePhp = Static<typeof SitePhp>
