// The cache plugin's node module: the `cache` service (purges of a site's nginx page cache, asked by the panel or by
// the site's WordPress through its purge spool).

import { defineNodeModule } from '../../nodes/node/contract.ts'
import { type CacheServiceOptions, cacheNodeService } from './service.ts'

export default defineNodeModule<CacheServiceOptions>({
  name: 'cache',
  source: import.meta.url,
  create: (_host, options) => ({ services: [cacheNodeService(options ?? {})] }),
})
