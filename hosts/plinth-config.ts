// PLINTH_CONFIG: one module an embedder writes to change the installation's plugin list (the standard plugins plus
// or minus some). `npm start`, the CLI and the bench all read it, so they all know the same scopes and routes.

import { existsSync } from 'node:fs'
import type { PluginDefinition } from '../core/host.ts'
import { SettingsError, type StandardSettings } from './settings.ts'
import { standardPlugins } from './standard-plugins.ts'

/** The plugin list of an installation. */
export type PluginList = readonly PluginDefinition[]

/**
 * An installation's plugins, and replacements of some of them: an override takes the place of the plugin of the same
 * name and must honour its contract (scopes, events, extension points), which the kernel checks at start-up.
 */
export interface Installation {
  readonly plugins: PluginList
  readonly overrides?: PluginList
}

/**
 * What a PLINTH_CONFIG module exports by default: the plugin list (or an {@link Installation}), or a function of the
 * standard list (made from the settings) and the settings that returns one.
 * @example export default definePlinthConfig((standard) => [...standard, dnsZonesPlugin()])
 * @example export default definePlinthConfig((standard) => ({ plugins: standard, overrides: [myBilling()] }))
 */
export type PlinthConfig =
  | PluginList
  | Installation
  | ((standard: PluginList, settings: StandardSettings) => PluginList | Installation)

/** Types a PLINTH_CONFIG module's default export. */
export function definePlinthConfig(config: PlinthConfig): PlinthConfig {
  return config
}

function isPluginList(value: unknown): value is PluginList {
  return (
    Array.isArray(value) && value.every((item) => typeof item === 'object' && item !== null && 'name' in item)
  )
}

/** A plugin list or an installation, as an installation; null for anything else. */
function asInstallation(value: unknown): Installation | null {
  if (isPluginList(value)) return { plugins: value }
  if (value === null || typeof value !== 'object' || !('plugins' in value)) return null
  const { plugins, overrides = [] } = value as { plugins: unknown; overrides?: unknown }
  return isPluginList(plugins) && isPluginList(overrides) ? { plugins, overrides } : null
}

/** The installation's plugins: the standard ones, or what PLINTH_CONFIG makes of them. */
export async function installationPlugins(settings: StandardSettings): Promise<Installation> {
  const standard = standardPlugins(settings)
  const path = settings.configPath
  if (path === null) return { plugins: standard }
  if (!existsSync(path)) throw new SettingsError([`PLINTH_CONFIG: no file at ${path}`])
  const loaded: { default?: unknown } = await import(path)
  const config = loaded.default
  const made =
    typeof config === 'function'
      ? (config as (standard: PluginList, settings: StandardSettings) => unknown)(standard, settings)
      : config
  const installation = asInstallation(made)
  if (!installation)
    throw new SettingsError([
      `PLINTH_CONFIG: ${path} must export by default a plugin list (or { plugins, overrides }), or a function of the standard list returning one`,
    ])
  return installation
}
