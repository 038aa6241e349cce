// A panel for tests: the standard plugins and yours on an in-memory store, held to their declarations.

import type { PluginDefinition } from '../../core/host.ts'
import {
  createKernelTestPanel,
  type KernelTestPanelOptions,
  type TestPanel,
} from '../../core/testing/create-test-panel.ts'
import { temporaryDataDir } from './temporary-data-dir.ts'

/** What {@link createTestPanel} mounts and how; every panel option has a default fit for tests. */
export interface TestPanelOptions extends Omit<KernelTestPanelOptions, 'plugins'> {
  /**
   * Your plugins, mounted beside the standard ones (or with only those they require, with `standard: false`); one
   * with a standard plugin's name takes its place (the standard sites plugin with other options).
   */
  readonly plugins?: readonly PluginDefinition[]
  /**
   * The standard plugins (brands, customers, nodes on a temporary data directory, sites, databases, WordPress,
   * files, SFTP, shell, certificates, billing, webhooks, the console), each with its test defaults. Default true;
   * false mounts `plugins` and only the standard plugins they require, directly or through one another (a plugin
   * requiring `sites` gets sites, nodes, customers and brands), unless `plugins` gives one of that name itself.
   */
  readonly standard?: boolean
  /** Hosts webhooks may reach over plain http (a loopback receiver: `['127.0.0.1']`). Default none. */
  readonly webhookAllowedHosts?: readonly string[]
  /** Whether customers check out themselves. Default `open`. */
  readonly billingCheckout?: 'open' | 'closed'
}

/**
 * A panel for tests: the standard plugins and `plugins` on a fresh in-memory store, every route held to its
 * declaration (a change without an audit entry, a refusal it does not list, fail the request).
 * @example const tp = await createTestPanel({ plugins: [dnsZonesPlugin()] })
 */
export async function createTestPanel(options: TestPanelOptions = {}): Promise<TestPanel> {
  const {
    standard = true,
    plugins = [],
    webhookAllowedHosts = [],
    billingCheckout = 'open',
    ...rest
  } = options
  const given = new Set(plugins.map((plugin) => plugin.name))
  const missing = plugins.some((plugin) => (plugin.requires ?? []).some((name) => !given.has(name)))
  // Loaded only when needed: a test of plugins that require nothing else does not load every standard plugin.
  const base =
    standard || missing
      ? (await import('../standard-plugins.ts')).standardPlugins({
          dataDir: temporaryDataDir(),
          webhookAllowedHosts,
          billingCheckout,
        })
      : []
  return standard
    ? createKernelTestPanel({
        ...rest,
        plugins: [...base.filter((plugin) => !given.has(plugin.name)), ...plugins],
      })
    : createKernelTestPanel({ ...rest, plugins, available: base })
}
