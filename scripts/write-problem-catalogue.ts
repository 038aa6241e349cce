// `npm run docs:generate`: writes the pages of docs/ generated from the standard installation's catalogue.

import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createPanel, openSqliteStore } from '../core/host.ts'
import {
  problemCatalogueMarkdown,
  rolesTableMarkdown,
  rolesTableMarkers,
} from '../hosts/problem-catalogue.ts'
import { standardPlugins } from '../hosts/standard-plugins.ts'

const panel = await createPanel({
  store: openSqliteStore({ path: ':memory:' }),
  // The local node's directory is never written: nothing is provisioned while the catalogue is read.
  plugins: standardPlugins({ dataDir: join(import.meta.dir, '..', 'data'), webhookAllowedHosts: [] }),
  secret: 'catalogue-generation-needs-no-real-secret',
})
const docs = join(import.meta.dir, '..', 'docs')
writeFileSync(join(docs, 'problem-codes.md'), problemCatalogueMarkdown(panel))
const tenancyPath = join(docs, 'tenancy.md')
const tenancy = readFileSync(tenancyPath, 'utf8')
const start = tenancy.indexOf(rolesTableMarkers.start)
const end = tenancy.indexOf(rolesTableMarkers.end)
if (start < 0 || end < start) throw new Error(`docs/tenancy.md lacks the roles table markers`)
writeFileSync(
  tenancyPath,
  `${tenancy.slice(0, start)}${rolesTableMarkdown(panel)}${tenancy.slice(end + rolesTableMarkers.end.length)}`,
)
await panel.close()
