// The brand's deployment: the standard installation, with the brand's billing in place of the standard one. Built
// only from what an outside author can import (the standard installation's API, the kernel's contract, plugins').

import { openStandardPanel, settingsFromEnv, standardPlugins } from '../../hosts/index.ts'
import { type ExternalBillingOptions, externalBillingPlugin } from './index.ts'

/** What the brand configures. */
export interface BrandDeployment {
  /** The installation's directory (`DATA_DIR`): its store, and where the local node keeps sites. */
  readonly dataDir: string
  /** The panel's own secret (`PLINTH_SECRET`: cursors, sessions); default one kept in `dataDir`. */
  readonly secret?: string
  /** The brand's billing: the secret shared with its billing system, where customers buy plans, its brand. */
  readonly billing: ExternalBillingOptions
}

/**
 * Opens the brand's installation: the standard plugins, with the brand's billing overriding the standard one (the
 * kernel checks at start-up that it honours billing's contract: its scopes, events and extension points).
 */
export function openBrandPanel(deployment: BrandDeployment) {
  const settings = settingsFromEnv({ DATA_DIR: deployment.dataDir, PLINTH_SECRET: deployment.secret })
  return openStandardPanel(settings, {
    plugins: standardPlugins(settings),
    overrides: [externalBillingPlugin(deployment.billing)],
  })
}
