// The built-in `local` node driver: a node (the node wing's, the same an agent runs) in the panel's own process, on
// the machine the panel runs on. Given a port it serves the sites (nginx and PHP-FPM of its own, when installed);
// without one it lays out their files only, under `<dataDir>/sites/<site id>/`.

import type { NodeDriver, NodeModuleEntry } from '../contract.ts'
import { createNode, type PlinthNode } from '../node/index.ts'

export { checkSiteSpec } from '../node/runtime/site-spec.ts'

/** Options of {@link createLocalDriver}. */
export interface LocalDriverOptions {
  /**
   * The node's data directory: sites' homes in `<dataDir>/sites/<site id>/`, nginx's and PHP-FPM's files in
   * `<dataDir>/nginx/` and `<dataDir>/php/`. To serve, one of its own that other users may pass through (not the
   * panel's 0700 data directory): the runtime refuses to serve from one they cannot reach.
   */
  readonly dataDir: string
  /**
   * Where the sites' nginx listens (`SITES_HTTP_PORT`, e.g. 80). Given: the driver serves the sites whenever nginx
   * and PHP-FPM are installed. Absent (the default): it lays out their files only.
   */
  readonly httpPort?: number
  /** Where it will listen for HTTPS (`SITES_HTTPS_PORT`). Default 443. */
  readonly httpsPort?: number
  /** The node modules the installation's plugins declare, read at each command (plugins add theirs during setup). */
  readonly modules?: () => readonly NodeModuleEntry[]
}

/** The `local` driver, with the node under it (the panel starts it at start-up and reads its traffic). */
export interface LocalDriver extends NodeDriver {
  readonly node: PlinthNode
  /** Makes the modules added since the last call (a no-op for those it runs). */
  loadModules(): Promise<void>
}

/** The `local` driver over `options.dataDir`. Throws if the directory could not be named safely in nginx. */
export function createLocalDriver(options: LocalDriverOptions): LocalDriver {
  const serve = options.httpPort !== undefined
  const node = createNode({
    dataDir: options.dataDir,
    httpPort: options.httpPort ?? 80,
    httpsPort: options.httpsPort ?? 443,
    filesOnly: !serve,
    env: process.env,
    setupCommand: 'npm run panel -- node setup',
  })
  const loadModules = async () => {
    await node.use(options.modules?.() ?? [])
  }
  return {
    name: 'local',
    description: serve
      ? 'Sites on the machine the panel runs on, served by its own nginx and PHP-FPM.'
      : 'Sites on the machine the panel runs on: their files and nginx server blocks, not served.',
    node,
    loadModules,
    async send(_node, command, signal) {
      await loadModules()
      return node.run(command, signal)
    },
  }
}
