// The must-use plugin WordPress sites get while their page cache is on (cache-purge-plugin.php): on a content change
// it writes what changed into the site's purge spool, which the node's `cache` service reads within a second. Written
// and removed as the site's user (never by root through a folder the site could have made a link).

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ApplicationSite } from '../../nodes/node/contract.ts'

/** Where the node's `cache` service reads purge requests: `<home>/tmp/<this>/` (plugins/cache/node/protocol.ts). */
const spoolFolder = 'plinth-cache-purge'
const source = readFileSync(new URL('./cache-purge-plugin.php', import.meta.url), 'utf8')

/** Writes the must-use plugin while `site`'s page cache is on, removes it when it is off. */
export async function syncCachePurgePlugin(site: ApplicationSite, signal: AbortSignal): Promise<void> {
  const folder = join(site.htdocs, 'wp-content', 'mu-plugins')
  const file = join(folder, 'plinth-cache-purge.php')
  if (site.spec.serving?.cache?.enabled !== true) {
    await site.run(['rm', '-f', '--', file], {}, signal)
    return
  }
  // The spool's path has no quote: the site's home passed the node's checks (no `'`, `"`, `\`, `$`).
  const content = source.replace('__PLINTH_SPOOL__', join(site.home, 'tmp', spoolFolder))
  const written = await site.run(
    ['sh', '-c', 'mkdir -p -- "$1" && cat > "$2.tmp" && mv -f -- "$2.tmp" "$2"', 'sh', folder, file],
    { stdin: content },
    signal,
  )
  if (written.code !== 0)
    throw new Error(
      `Writing the page cache's must-use plugin failed (exit ${written.code}): ${written.stderr.trim()}`,
    )
}
