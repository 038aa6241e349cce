// An outside author's plugin: adds an `html` site type to the sites plugin, using only public contracts. (The
// standard installation has its own `static` type, from the php plugin; an outside type takes a name of its own.)

import { definePlugin } from '../../core/index.ts'
import { siteTypes } from '../../plugins/sites/contract.ts'

/**
 * Adds the `html` site type (plain files served as they are by nginx alone: `serving.php` false, so its node runs
 * no PHP for it). Mount it beside `sitesPlugin()`.
 */
export const staticSiteTypePlugin = () =>
  definePlugin({
    name: 'static-site-type',
    version: '1.0.0',
    description: 'HTML sites: plain files served as they are.',
    requires: ['sites'],
    setup(context) {
      context.extensionPoint(siteTypes).add({
        name: 'html',
        description: 'Plain files served as they are, without PHP.',
        serving: { php: false },
      })
    },
  })
