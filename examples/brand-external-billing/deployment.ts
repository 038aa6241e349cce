// The brand's deployment: the standard plugins, with the brand's billing in place of the standard one. Built only
// from what an outside author can import (the kernel's contract and the plugins' factories).

import { createPanel, type Panel, type Store } from '../../core/index.ts'
import { billingPlugin } from '../../plugins/billing/index.ts'
import { brandsPlugin } from '../../plugins/brands/index.ts'
import { customersPlugin } from '../../plugins/customers/index.ts'
import { nodesPlugin } from '../../plugins/nodes/index.ts'
import { sitesPlugin } from '../../plugins/sites/index.ts'
import { externalBillingPlugin } from './index.ts'

/** What the brand configures. */
export interface BrandDeployment {
  readonly store: Store
  /** Where the local node keeps sites. */
  readonly dataDir: string
  /** The panel's own secret (cursors, sessions). */
  readonly secret: string
  /** The secret shared with the billing system. */
  readonly billingSecret: string
  /** Where customers buy plans. */
  readonly checkoutUrl: string
  /** The brand this billing system bills for (`brd_…`); plans land in it. Default: the installation's default brand. */
  readonly brandId?: string
}

/** The plugins of the brand's panel and the override that swaps billing. */
export function brandPlugins(
  settings: Pick<BrandDeployment, 'dataDir' | 'billingSecret' | 'checkoutUrl' | 'brandId'>,
) {
  return {
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      nodesPlugin({ dataDir: settings.dataDir }),
      sitesPlugin(),
      billingPlugin(),
    ],
    overrides: [
      externalBillingPlugin({
        secret: settings.billingSecret,
        checkoutUrl: settings.checkoutUrl,
        ...(settings.brandId ? { brandId: settings.brandId } : {}),
      }),
    ],
  }
}

/** Opens the brand's panel. */
export function openBrandPanel(settings: BrandDeployment): Promise<Panel> {
  return createPanel({ store: settings.store, secret: settings.secret, ...brandPlugins(settings) })
}
