// Calls to the services a node offers its sites (files, SFTP accounts, commands): the site looked up from what the
// runtime recorded of it (never from the caller's word), its Unix user found, and the service handed a `NodeSite`
// that runs programs as that user, so the kernel keeps a service's work inside what the site may touch.

import { realpath, stat } from 'node:fs/promises'
import { join } from 'node:path'
import {
  NodeRefusal,
  type NodeService,
  type NodeServiceCall,
  type NodeSite,
  type SiteCall,
} from '../contract.ts'
import type { RuntimeLayout } from './layout.ts'
import { nodeSite } from './node-site.ts'
import { isSafeSiteId } from './site-spec.ts'
import { readSiteState } from './site-state.ts'
import { findUser, type UnixUser } from './unix-users.ts'

/** How long a site's Unix user, once looked up, is taken as it was (calls come many a second: a shell's keys). */
const userTtlMs = 30_000
const users = new Map<string, { readonly user: UnixUser | null; readonly at: number }>()

/** The user called `name`, looked up at most every {@link userTtlMs} (`getent` takes milliseconds). */
async function cachedUser(name: string): Promise<UnixUser | null> {
  const known = users.get(name)
  if (known && Date.now() - known.at < userTtlMs) return known.user
  const user = await findUser(name)
  // Only a user found is kept: one made a moment ago is found at the next call.
  if (user) users.set(name, { user, at: Date.now() })
  else users.delete(name)
  return user
}

/** What a site's calls need of its group: entering it, and making it again when the machine lost it. */
export interface SiteGroupAccess {
  enter(siteId: string, argv: readonly string[]): string[]
  /** Makes the site's group again from its `state.json` when it is missing; nothing for a site no longer kept. */
  restore(siteId: string): Promise<void>
}

/** The site as the runtime recorded it, or a refusal (`site_not_on_node`) when the node has no such site. */
export async function nodeSiteOf(
  layout: RuntimeLayout,
  groups: SiteGroupAccess,
  siteId: string,
): Promise<NodeSite> {
  const absent = () => new NodeRefusal('site_not_on_node', `Site ${siteId} is not on this node`)
  if (!isSafeSiteId(siteId)) throw absent()
  const home = join(layout.sites, siteId)
  const state = await readSiteState(join(home, 'state.json'))
  if (state?.siteId !== siteId) throw absent()
  let current = state.unixUser ? await cachedUser(state.unixUser) : null
  // A user removed and made again (the site deleted and made anew) has new ids: the home's owner says so.
  if (current && (await stat(join(home, 'htdocs')).catch(() => null))?.uid !== current.uid) {
    users.delete(current.name)
    current = await cachedUser(current.name)
  }
  if (state.unixUser && !current)
    throw new Error(`Site ${siteId}'s Unix user ${state.unixUser} is missing on this node`)
  // Its programs run in its group: made again, with the limits it recorded, if the machine lost it (a reboot).
  if (current) await groups.restore(siteId)
  return nodeSite({
    id: siteId,
    home: await realpath(home),
    state: state.state,
    user: current,
    diskMB: state.diskMB,
    image: join(layout.disks, `${siteId}.ext4`),
    enter: (argv) => groups.enter(siteId, argv),
  })
}

/** The refusal of a call to a service the node does not offer (or that answers no such call). */
const unknownService = (name: unknown) =>
  new NodeRefusal(
    'unknown_node_service',
    `This node offers no service called ${JSON.stringify(String(name).slice(0, 64))}`,
  )

/** Answers site calls with the services `services()` lists (read at each call: plugins add theirs during setup). */
export function siteCalls(
  layout: RuntimeLayout,
  groups: SiteGroupAccess,
  services: () => readonly NodeService[],
) {
  return async function call(request: SiteCall, signal: AbortSignal): Promise<unknown> {
    const service = services().find((candidate) => candidate.name === request.service)
    if (!service) throw unknownService(request.service)
    const site = await nodeSiteOf(layout, groups, request.siteId)
    return service.handle(site, request.request, signal)
  }
}

/** Answers calls about the node itself with the services that take them. */
export function nodeCalls(services: () => readonly NodeService[]) {
  return async function nodeCall(request: NodeServiceCall, signal: AbortSignal): Promise<unknown> {
    const service = services().find((candidate) => candidate.name === request.service)
    if (!service?.handleNode) throw unknownService(request.service)
    return service.handleNode(request.request, signal)
  }
}
