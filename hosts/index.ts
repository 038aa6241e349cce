// The standard installation as public API: what an embedder or an example may import to run the panel with
// plugins of its own (hosts/testing/index.ts is the testing kit; core/index.ts the plugin contract).

export type { Panel } from '../core/host.ts'

export { runStandardServer, type StandardServer } from './bun/run-server.ts'
export { type RunningServer, servePanel } from './bun/serve.ts'
export { mountPanel } from './elysia/mount.ts'
export { toFetchHandler } from './fetch/handler.ts'
export {
  definePlinthConfig,
  type Installation,
  installationPlugins,
  type PlinthConfig,
  type PluginList,
} from './plinth-config.ts'
export { type CheckoutMode, SettingsError, type StandardSettings, settingsFromEnv } from './settings.ts'
export { openStandardPanel } from './standard-panel.ts'
export { standardPlugins } from './standard-plugins.ts'
