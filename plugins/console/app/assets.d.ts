// Modules the bundler provides: style sheets, imported for their effect (emitted beside the script), and the console
// modules of the installation's plugins (app-bundle.ts writes it from the `console.pages` extension point).

declare module '*.css'

declare module 'plinth-console:pages' {
  import type { ConsolePagesModule } from './console-pages.ts'

  /** Each mounted plugin's console module, in the order the plugins were set up. */
  const modules: readonly ConsolePagesModule[]
  export default modules
}
