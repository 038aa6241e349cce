// `npm run docs:codes`: regenerates docs/problem-codes.md from the standard panel's catalogues.

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createPanel, openSqliteStore } from '../core/index.ts'
import { problemCatalogueMarkdown } from '../hosts/problem-catalogue.ts'
import { standardPlugins } from '../hosts/standard-panel.ts'

const panel = await createPanel({
  store: openSqliteStore({ path: ':memory:' }),
  // The local node's directory is never written: nothing is provisioned while the catalogue is read.
  plugins: standardPlugins({ dataDir: join(import.meta.dir, '..', 'data'), webhookAllowedHosts: [] }),
  secret: 'catalogue-generation-needs-no-real-secret',
})
const path = join(import.meta.dir, '..', 'docs', 'problem-codes.md')
writeFileSync(path, problemCatalogueMarkdown(panel))
await panel.close()
console.log(`Wrote ${path}`)
