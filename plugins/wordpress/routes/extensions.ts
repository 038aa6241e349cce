// A site's WordPress plugins and themes: list, install from a zip the customer uploaded into the site, activate,
// deactivate (plugins: a theme is replaced by activating another), delete.

import { defineRoute, type PluginContext, Reply } from '../../../core/index.ts'
import { siteScopes } from '../../sites/contract.ts'
import { wordpressProblems as problems } from '../problems.ts'
import type { WordPressPlugin as PluginAnswer, WordPressTheme as ThemeAnswer } from '../protocol.ts'
import {
  PackageBody,
  SlugParams,
  WordPressPlugin,
  WordPressPluginPage,
  WordPressTheme,
  WordPressThemePage,
} from '../schemas.ts'
import { operationProblems, siteWordPressOf } from '../site-wordpress.ts'

const kinds = {
  plugin: {
    plural: 'plugins',
    Name: 'Plugin',
    item: WordPressPlugin,
    page: WordPressPluginPage,
    notFound: problems.wordpress_plugin_not_found,
    inUse: problems.wordpress_plugin_active,
    exists: problems.wordpress_plugin_exists,
  },
  theme: {
    plural: 'themes',
    Name: 'Theme',
    item: WordPressTheme,
    page: WordPressThemePage,
    notFound: problems.wordpress_theme_not_found,
    inUse: problems.wordpress_theme_active,
    exists: problems.wordpress_theme_exists,
  },
} as const

const packageProblems = [
  problems.invalid_wordpress_package,
  problems.unsafe_package_entry,
  problems.wordpress_package_not_found,
  problems.invalid_package_path,
  problems.package_path_escapes_site,
]

/** The routes of one kind: `plugin` or `theme`. */
function extensionRoutes(context: PluginContext, kind: keyof typeof kinds) {
  const wordpressOf = siteWordPressOf(context)
  const { plural, Name, item, page, notFound, inUse, exists } = kinds[kind]
  type Item = PluginAnswer | ThemeAnswer
  const base = `/sites/:id/wordpress/${plural}`
  const action = (verb: string) => `wordpress_${kind}.${verb}`
  const routes = [
    defineRoute({
      method: 'GET',
      path: base,
      operationId: `listWordPress${Name}s`,
      summary: `List a WordPress site’s ${plural}`,
      description: `Every installed ${kind}, read by the site’s own WordPress (audited as \`${action('list')}\`).`,
      scope: siteScopes.shell,
      params: { id: 'site' },
      responses: { 200: page },
      problems: operationProblems,
      async handler({ params, view, audit, request }) {
        const wordpress = await wordpressOf(view, params.id, audit, request.signal)
        const items = await wordpress.run<Item[]>({ op: `${plural}.list` }, { action: action('list') })
        return { items, nextCursor: null }
      },
    }),
    defineRoute({
      method: 'POST',
      path: base,
      operationId: `installWordPress${Name}`,
      summary: `Install a ${kind} from a zip uploaded into the site`,
      description: `WordPress’s own installer (as “Upload ${Name}” in its admin) unpacks the zip into \`wp-content/${plural}\`, after the node checked every entry (no \`..\`, no absolute path, no symbolic link) and the path (inside the site, no link followed). Never replaces an installed ${kind} (409). The ${kind} is left inactive. Not idempotent: a repeat answers 409 \`wordpress_${kind}_exists\`.`,
      scope: siteScopes.shell,
      params: { id: 'site' },
      body: PackageBody,
      idempotent: false,
      responses: { 201: item },
      problems: [...operationProblems, ...packageProblems, exists],
      async handler({ params, body, view, audit, request }) {
        const wordpress = await wordpressOf(view, params.id, audit, request.signal)
        const installed = await wordpress.run<Item>(
          { op: `${plural}.install`, path: body.path },
          { action: action('install'), details: (answer: Item) => ({ slug: answer.slug, path: body.path }) },
        )
        return Reply.created(installed, `/sites/${params.id}/wordpress/${plural}/${installed.slug}`)
      },
    }),
    defineRoute({
      method: 'POST',
      path: `${base}/:slug/activate`,
      operationId: `activateWordPress${Name}`,
      summary: `Activate a WordPress ${kind}`,
      description:
        kind === 'plugin'
          ? 'As WordPress’s admin does: its activation hook runs; a plugin that fails to load or prints output is refused (422 `wordpress_activation_failed`). Activating an active plugin changes nothing.'
          : 'Switches the site to this theme (the one active before becomes inactive). A broken theme is refused (422 `wordpress_activation_failed`).',
      scope: siteScopes.shell,
      params: SlugParams,
      responses: { 200: item },
      problems: [...operationProblems, notFound, problems.wordpress_activation_failed],
      async handler({ params, view, audit, request }) {
        const wordpress = await wordpressOf(view, params.id, audit, request.signal)
        return wordpress.run<Item>(
          { op: `${plural}.activate`, slug: params.slug },
          { action: action('activate'), details: { slug: params.slug } },
        )
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: `${base}/:slug`,
      operationId: `deleteWordPress${Name}`,
      summary: `Delete a WordPress ${kind}`,
      description:
        kind === 'plugin'
          ? 'Deletes an inactive plugin’s files, after running its uninstall routine, as WordPress’s admin does. An active plugin is refused (409).'
          : 'Deletes an inactive theme’s files. The active theme and its parent are refused (409).',
      scope: siteScopes.shell,
      params: SlugParams,
      responses: { 204: { description: `The ${kind} is deleted.` } },
      problems: [...operationProblems, notFound, inUse],
      async handler({ params, view, audit, request }) {
        const wordpress = await wordpressOf(view, params.id, audit, request.signal)
        await wordpress.run<Item>(
          { op: `${plural}.delete`, slug: params.slug },
          { action: action('delete'), details: { slug: params.slug } },
        )
        return Reply.noContent()
      },
    }),
  ]
  if (kind === 'plugin')
    routes.push(
      defineRoute({
        method: 'POST',
        path: `${base}/:slug/deactivate`,
        operationId: 'deactivateWordPressPlugin',
        summary: 'Deactivate a WordPress plugin',
        description:
          'As WordPress’s admin does: the plugin is loaded so its deactivation hook runs, and is deactivated even when it fails to load (the way out of a plugin that breaks the site). Deactivating an inactive plugin changes nothing.',
        scope: siteScopes.shell,
        params: SlugParams,
        responses: { 200: item },
        problems: [...operationProblems, notFound],
        async handler({ params, view, audit, request }) {
          const wordpress = await wordpressOf(view, params.id, audit, request.signal)
          return wordpress.run<Item>(
            { op: 'plugins.deactivate', slug: params.slug },
            { action: action('deactivate'), details: { slug: params.slug } },
          )
        },
      }),
    )
  return routes
}

export const extensionsRoutes = (context: PluginContext) => [
  ...extensionRoutes(context, 'plugin'),
  ...extensionRoutes(context, 'theme'),
]
