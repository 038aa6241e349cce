// The API's shapes of a site's WordPress: its core, plugins, themes and users, as the node's runner reports them.

import { idPattern, t } from '../../core/index.ts'
import { slugPattern } from './protocol.ts'

export const WordPressCore = t.Object(
  {
    version: t.String({ description: 'WordPress’s version (`6.1.9`).' }),
    databaseVersion: t.Integer({
      description: 'The database schema version WordPress records (`$wp_db_version`).',
    }),
    siteUrl: t.String({ description: 'The site’s address as WordPress knows it (its `home` option).' }),
    title: t.String({ description: 'The site’s title (its `blogname` option).' }),
    maintenance: t.Boolean({
      description:
        'Whether WordPress’s maintenance mode is on: visitors get its 503 “Briefly unavailable for scheduled maintenance” page.',
    }),
  },
  { $id: 'WordPressCore' },
)

const Slug = t.String({
  description: 'The plugin’s folder (or a single-file plugin’s file name without `.php`).',
})

export const WordPressPlugin = t.Object(
  {
    slug: Slug,
    file: t.String({ description: 'Its main file under `wp-content/plugins` (`akismet/akismet.php`).' }),
    name: t.String({ description: 'Its `Plugin Name` header.' }),
    version: t.String({ description: 'Its `Version` header (may be empty).' }),
    status: t.Union([t.Literal('active'), t.Literal('inactive')]),
    description: t.String({ description: 'Its `Description` header, as plain text.' }),
  },
  { $id: 'WordPressPlugin' },
)

export const WordPressTheme = t.Object(
  {
    slug: t.String({ description: 'The theme’s folder under `wp-content/themes` (its stylesheet).' }),
    name: t.String({ description: 'Its `Theme Name` header.' }),
    version: t.String({ description: 'Its `Version` header (may be empty).' }),
    status: t.Union([t.Literal('active'), t.Literal('parent'), t.Literal('inactive')], {
      description: '`parent`: the parent of the active (child) theme.',
    }),
    parent: t.Union([t.String(), t.Null()], { description: 'Its parent theme’s slug, for a child theme.' }),
  },
  { $id: 'WordPressTheme' },
)

export const WordPressUser = t.Object(
  {
    id: t.Integer({ description: 'WordPress’s user id.' }),
    login: t.String(),
    email: t.String(),
    displayName: t.String(),
    roles: t.Array(t.String(), { description: 'Its WordPress roles (`administrator`, `editor`, …).' }),
    registeredAt: t.String({ format: 'date-time' }),
  },
  { $id: 'WordPressUser' },
)

/** A user with the password the panel generated: shown this once. */
export const WordPressUserWithPassword = t.Composite(
  [
    WordPressUser,
    t.Object({
      password: t.String({
        description:
          'The password the panel generated (20 letters and digits): shown this once, kept nowhere.',
      }),
    }),
  ],
  { $id: 'WordPressUserWithPassword' },
)

const page = (
  item: typeof WordPressPlugin | typeof WordPressTheme | typeof WordPressUser,
  id: string,
  note: string,
) =>
  t.Object(
    {
      items: t.Array(item),
      nextCursor: t.Union([t.String(), t.Null()], { description: note }),
    },
    { $id: id },
  )
export const WordPressPluginPage = page(
  WordPressPlugin,
  'WordPressPluginPage',
  'Always null: every plugin is listed.',
)
export const WordPressThemePage = page(
  WordPressTheme,
  'WordPressThemePage',
  'Always null: every theme is listed.',
)
export const WordPressUserPage = page(
  WordPressUser,
  'WordPressUserPage',
  'Pass as `cursor` for the next page; null at the end.',
)

export const SearchReplaceResult = t.Object(
  {
    from: t.String(),
    to: t.String(),
    dryRun: t.Boolean(),
    replacements: t.Integer({ description: 'Occurrences replaced (or that would be, in a dry run).' }),
    tables: t.Array(t.Object({ name: t.String(), replacements: t.Integer() }), {
      description: 'The tables where something was (or would be) replaced.',
    }),
  },
  { $id: 'WordPressSearchReplace' },
)

/** The site id and a plugin's or theme's slug in the path. */
export const SlugParams = t.Object({
  id: t.String({ pattern: idPattern('site'), description: 'The site, `site_…`.' }),
  slug: t.String({ pattern: slugPattern, description: 'The plugin’s or theme’s folder name.' }),
})

/** A zip in the site to install from. */
export const PackageBody = t.Object({
  path: t.String({
    minLength: 2,
    maxLength: 4096,
    pattern: '^/',
    description:
      'The site path of a zip the customer uploaded (files API or SFTP): `/tmp/my-plugin.zip`, `/htdocs/…` (`/` is the site’s home). Checked on the node: no `..` out of the site, no link followed. The zip is left where it is.',
    examples: ['/tmp/my-plugin.zip'],
  }),
})
