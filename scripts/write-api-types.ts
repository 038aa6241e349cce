// Regenerates the console's API types from the served OpenAPI document: the console's own and every standard
// plugin's (`bun scripts/write-api-types.ts`), or, given a PLINTH_CONFIG module, those of the plugins it adds to
// the standard installation (`bun scripts/write-api-types.ts examples/dns-zones/plinth.config.ts`).

import { resolve } from 'node:path'
import { apiTypesFiles, apiTypesOf, shown } from '../plugins/console/api-types.ts'
import { documentOf, installationPanel } from './served-document.ts'

const configPath = process.argv[2]
const standardPlugins = resolve(import.meta.dir, '..', 'plugins')
const panel = await installationPanel(configPath && resolve(configPath))
try {
  const document = await documentOf(panel)
  for (const file of apiTypesFiles(panel)) {
    // With a config, the standard files are left as the standard installation makes them.
    if (configPath && file.path.startsWith(`${standardPlugins}/`)) continue
    await Bun.write(file.path, await apiTypesOf(document, file))
    console.log(`wrote ${shown(file.path)}`)
  }
} finally {
  await panel.close()
}
