// Calls to the services a node offers its sites (files, SFTP accounts, commands): the site looked up from what the
// runtime recorded of it (never from the caller's word), its Unix user found, and the service handed a `NodeSite`
// that runs programs as that user, so the kernel keeps a service's work inside what the site may touch.

import { realpath } from 'node:fs/promises'
import { join } from 'node:path'
import { NodeRefusal, type NodeService, type NodeSite, type SiteCall } from '../contract.ts'
import { environment, run, userCommand } from './commands.ts'
import { directoryBytes } from './disk-usage.ts'
import type { RuntimeLayout } from './layout.ts'
import { isSafeSiteId } from './site-spec.ts'
import { readSiteState } from './site-state.ts'
import { findUser } from './unix-users.ts'

/** The site as the runtime recorded it, or a refusal (`site_not_on_node`) when the node has no such site. */
export async function nodeSiteOf(layout: RuntimeLayout, siteId: string): Promise<NodeSite> {
  const absent = () => new NodeRefusal('site_not_on_node', `Site ${siteId} is not on this node`)
  if (!isSafeSiteId(siteId)) throw absent()
  const home = join(layout.sites, siteId)
  const state = await readSiteState(join(home, 'state.json'))
  if (state?.siteId !== siteId) throw absent()
  const user = state.unixUser ? await findUser(state.unixUser) : null
  if (state.unixUser && !user)
    throw new Error(`Site ${siteId}'s Unix user ${state.unixUser} is missing on this node`)
  const as = user ? { uid: user.uid, gid: user.gid, home } : undefined
  return {
    id: siteId,
    home: await realpath(home),
    state: state.state,
    user: user ? { name: user.name, uid: user.uid, gid: user.gid } : null,
    quotaBytes: state.diskMB === null ? null : state.diskMB * 1024 * 1024,
    usedBytes: () => directoryBytes(home),
    run: (argv, options, signal) =>
      run(argv, {
        ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
        cwd: options.cwd ?? home,
        ...(as ? { as } : {}),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        signal,
      }),
    asUser: (argv) => userCommand(argv, as),
    environment: environment(as),
  }
}

/** Answers site calls with the services `services()` lists (read at each call: plugins add theirs during setup). */
export function siteCalls(layout: RuntimeLayout, services: () => readonly NodeService[]) {
  return async function call(request: SiteCall, signal: AbortSignal): Promise<unknown> {
    const service = services().find((candidate) => candidate.name === request.service)
    if (!service)
      throw new NodeRefusal(
        'unknown_node_service',
        `This node offers no service called ${JSON.stringify(String(request.service).slice(0, 64))}`,
      )
    const site = await nodeSiteOf(layout, request.siteId)
    return service.handle(site, request.request, signal)
  }
}
