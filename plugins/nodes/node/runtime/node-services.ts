// What a node's services keep running while the node runs (the SFTP server, the node's MariaDB): each started with a
// directory of its own, a failure logged and left out, all stopped in the reverse order.

import { chmod, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { NodeService, NodeServiceHost } from '../contract.ts'
import type { RuntimeLayout } from './layout.ts'
import type { SiteGroupAccess } from './site-calls.ts'
import { nodeSiteOf } from './site-calls.ts'

/** Starts what `services` keep running, in the order listed; resolves with how to stop them all. */
export async function startServices(
  layout: RuntimeLayout,
  groups: SiteGroupAccess,
  services: readonly NodeService[],
  log: NodeServiceHost['log'],
): Promise<() => Promise<void>> {
  const stops: (() => Promise<void>)[] = []
  for (const service of services) {
    if (!service.start) continue
    try {
      // Passable by the sites' users (a service may bind files from it into a site's sandbox).
      const own = join(layout.dataDir, 'services', service.name)
      await mkdir(own, { recursive: true, mode: 0o711 })
      await chmod(join(layout.dataDir, 'services'), 0o711)
      stops.push(
        await service.start({ dataDir: own, site: (siteId) => nodeSiteOf(layout, groups, siteId), log }),
      )
    } catch (error) {
      log(
        'error',
        { service: service.name, err: String(error) },
        `node service ${service.name} did not start`,
      )
    }
  }
  return async () => {
    for (const stop of stops.reverse()) await stop()
  }
}
