// The testing kit mounts what a plugin builds on: the standard plugins it requires, with their test defaults.

import { expect, test } from 'bun:test'
import { definePlugin } from '../../core/index.ts'
import { sitesPlugin } from '../../plugins/sites/index.ts'
import { createTestPanel } from './index.ts'

/** A plugin of an outside author that builds on the sites plugin, and nothing else. */
const siteNotes = () =>
  definePlugin({ name: 'site-notes', version: '1.0.0', description: 'Notes on sites.', requires: ['sites'] })

test('standard: false mounts a plugin with the standard plugins it requires, through one another, and no others', async () => {
  const tp = await createTestPanel({ standard: false, plugins: [siteNotes()] })
  try {
    const names = tp.panel.plugins.map((plugin) => plugin.name)
    expect(names).toEqual(['brands', 'customers', 'nodes', 'sites', 'site-notes'])
    const created = await tp.request('POST', '/api/v1/customers', {
      token: await tp.token(),
      body: { name: 'A' },
    })
    expect(created.status).toBe(201)
  } finally {
    await tp.panel.close()
  }
})

test('a plugin given with a standard plugin’s name takes its place, with or without the standard set', async () => {
  for (const standard of [false, true]) {
    const mine = { ...sitesPlugin({ wordpress: false }), version: '9.9.9' }
    const tp = await createTestPanel({ standard, plugins: [mine, siteNotes()] })
    try {
      const sites = tp.panel.plugins.filter((plugin) => plugin.name === 'sites')
      expect(sites).toEqual([{ name: 'sites', version: '9.9.9' }])
    } finally {
      await tp.panel.close()
    }
  }
})
