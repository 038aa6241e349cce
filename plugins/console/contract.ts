// The console plugin's public contract: the extension point through which plugins add pages and navigation entries
// to the console, and the service that says which modules an installation's console is built from. Server code
// only: a plugin names its console module by path, and nothing here loads React or a page.

import { join } from 'node:path'
import { defineExtensionPoint, defineService, type PluginContext } from '../../core/index.ts'

/** A plugin's console module, as it adds it to {@link consolePages}. */
export interface ConsolePages {
  /** The plugin adding it; its name is also the OpenAPI tag its module's client types are generated for. */
  readonly plugin: string
  /**
   * The absolute path of its console module (by convention `<plugin folder>/console/index.tsx`), whose default export
   * is made by `defineConsolePages` of plugins/console/kit.ts. Only the console's bundler reads it.
   */
  readonly module: string
}

/** The console modules of the installation's plugins, one per plugin, built into one app with the console's own. */
export const consolePages = defineExtensionPoint<ConsolePages>({
  id: 'console.pages',
  owner: 'console',
  description: 'The console modules (pages, navigation entries) plugins add to the console.',
  keyOf: (entry) => entry.plugin,
})

/**
 * Adds the plugin's console module, `console/index.tsx` in its folder `pluginDir`, to the console if the
 * installation mounts one. Call it in `setup` of a plugin that declares `enhances: ['console']`.
 * @example setup(context) { addConsolePages(context, import.meta.dir) }
 */
export function addConsolePages(context: PluginContext, pluginDir: string): void {
  context
    .extensionPoint(consolePages)
    .add({ plugin: context.plugin, module: join(pluginDir, 'console', 'index.tsx') })
}

/** Which console modules the installation's console is built from (its plugins' `console.pages`). */
export interface ConsoleModules {
  list(): readonly ConsolePages[]
}

/** For hosts and tools (the API types generator): the installation's console modules; null without the console. */
export const consoleModules = defineService<ConsoleModules>({
  id: 'console.modules',
  owner: 'console',
  description: 'The console modules the installation’s console is built from.',
})
