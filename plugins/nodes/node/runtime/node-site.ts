// A site as node services and applications see it: its home, state and Unix user, and programs run as that user
// (so the kernel, not a service's own checks alone, keeps its work inside what the site may touch).

import type { NodeSite } from '../contract.ts'
import { environment, run, userCommand } from './commands.ts'
import { siteDiskUse } from './site-disks.ts'
import type { UnixUser } from './unix-users.ts'

/** What {@link nodeSite} is made of. */
export interface NodeSiteParts {
  readonly id: string
  /** Its home, a real path. */
  readonly home: string
  readonly state: NodeSite['state']
  /** Its Unix user, or null where the node makes none (programs then run as the node's own user). */
  readonly user: UnixUser | null
  readonly diskMB: number | null
  /** Where its filesystem image is when it has a quota the kernel enforces (`<dataDir>/disks/<site id>.ext4`). */
  readonly image: string
  /** Places a command line in the site's cgroup (`SiteGroups.enter` for the site); default: not placed. */
  readonly enter?: (argv: readonly string[]) => string[]
}

/** The site made of `parts`. */
export function nodeSite(parts: NodeSiteParts): NodeSite {
  const { id, home, state, user, diskMB, image } = parts
  const enter = parts.enter ?? ((argv: readonly string[]) => [...argv])
  const as = user ? { uid: user.uid, gid: user.gid, home, enter } : undefined
  return {
    id,
    home,
    state,
    user: user ? { name: user.name, uid: user.uid, gid: user.gid } : null,
    quotaBytes: diskMB === null ? null : diskMB * 1024 * 1024,
    // Its filesystem's own count, at once, for a home on its image; `du` for a plain one.
    usedBytes: async (signal) => (await siteDiskUse(home, image, signal)).bytes,
    run: (argv, options, signal) =>
      run(argv, {
        ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
        cwd: options.cwd ?? home,
        ...(as ? { as } : {}),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        signal,
      }),
    asUser: (argv) => userCommand(argv, as),
    enter: (argv) => (user ? enter(argv) : [...argv]),
    environment: environment(as),
  }
}
