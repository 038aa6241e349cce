// A site as node services and applications see it: its home, state and Unix user, and programs run as that user
// (so the kernel, not a service's own checks alone, keeps its work inside what the site may touch).

import type { NodeSite } from '../contract.ts'
import { environment, run, userCommand } from './commands.ts'
import { directoryBytes } from './disk-usage.ts'
import type { UnixUser } from './unix-users.ts'

/**
 * The bytes a site's home takes: `du` (C, a few hundred ms for a couple of hundred thousand files), never following a
 * link nor leaving the home's filesystem; the walk in process where `du` fails.
 */
export async function homeBytes(home: string, signal: AbortSignal): Promise<number> {
  const result = await run(['du', '-s', '-b', '-P', '-x', '--', home], { signal, timeoutMs: 300_000 })
  const bytes = Number(result.stdout.split('\t')[0])
  return result.code === 0 && Number.isFinite(bytes) ? bytes : directoryBytes(home)
}

/** What {@link nodeSite} is made of. */
export interface NodeSiteParts {
  readonly id: string
  /** Its home, a real path. */
  readonly home: string
  readonly state: NodeSite['state']
  /** Its Unix user, or null where the node makes none (programs then run as the node's own user). */
  readonly user: UnixUser | null
  readonly diskMB: number | null
  /** Places a command line in the site's cgroup (`SiteGroups.enter` for the site); default: not placed. */
  readonly enter?: (argv: readonly string[]) => string[]
}

/** The site made of `parts`. */
export function nodeSite(parts: NodeSiteParts): NodeSite {
  const { id, home, state, user, diskMB } = parts
  const enter = parts.enter ?? ((argv: readonly string[]) => [...argv])
  const as = user ? { uid: user.uid, gid: user.gid, home, enter } : undefined
  return {
    id,
    home,
    state,
    user: user ? { name: user.name, uid: user.uid, gid: user.gid } : null,
    quotaBytes: diskMB === null ? null : diskMB * 1024 * 1024,
    usedBytes: (signal) => homeBytes(home, signal),
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
