// An outside author's plugin: adds a `static` site type to the sites plugin, using only public contracts.

import { definePlugin } from '../../core/index.ts'
import { siteTypes } from '../../plugins/sites/contract.ts'

/** Adds the `static` site type (plain files served as they are). Mount it beside `sitesPlugin()`. */
export const staticSiteTypePlugin = () =>
  definePlugin({
    name: 'static-site-type',
    version: '1.0.0',
    description: 'Static sites: plain files served as they are.',
    requires: ['sites'],
    setup(context) {
      context
        .extensionPoint(siteTypes)
        .add({ name: 'static', description: 'Plain files served as they are.' })
    },
  })
