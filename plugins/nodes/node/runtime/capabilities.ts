// What a node lacks, in words an operator acts on: the programs serving needs, and what each application its
// modules offer needs besides (`npm run panel -- node setup` installs them all).

import { statSync } from 'node:fs'
import { dirname } from 'node:path'
import type { NodeLack, NodePrograms } from '../contract.ts'

/** An application's probe, by its kind. */
export interface ProbedApplication {
  readonly kind: string
  readonly probe: { readonly version: string } | { readonly missing: readonly string[] }
}

/**
 * The first directory above `dataDir` that lets no other user through, or null: nginx's workers and the sites' users
 * could not reach their files below it (a checkout in root's 0700 home).
 */
function closedAbove(dataDir: string): string | null {
  for (let current = dirname(dataDir); current !== dirname(current); current = dirname(current)) {
    try {
      if ((statSync(current).mode & 0o001) === 0) return current
    } catch {
      // Not made yet: the runtime makes it passable when it does.
    }
  }
  return null
}

/**
 * What the node lacks: nginx, PHP-FPM and bubblewrap to serve (unless it was told to lay out files only), root to give each
 * site a Unix user, and what each application needs.
 */
export function lacksOf(
  programs: NodePrograms,
  applications: readonly ProbedApplication[],
  how: {
    readonly filesOnly: boolean
    readonly root: boolean
    readonly dataDir: string
    /** Whether bubblewrap, the sites' PHP-FPM masters' sandbox, is installed. */
    readonly sandbox: boolean
  },
): NodeLack[] {
  if (how.filesOnly) return []
  const serving = 'serving sites'
  const closed = how.root ? closedAbove(how.dataDir) : null
  const lacks: NodeLack[] = [
    ...(programs.nginx ? [] : [{ what: 'nginx', for: serving }]),
    ...(programs.phpFpm ? [] : [{ what: 'php-fpm', for: serving }]),
    ...(how.sandbox ? [] : [{ what: 'bubblewrap', for: serving }]),
    ...(how.root ? [] : [{ what: 'root (a Unix user per site)', for: serving }]),
    ...(closed
      ? [
          {
            what: `passage through ${closed} for the sites' users (chmod o+x ${closed}, or another data directory)`,
            for: serving,
          },
        ]
      : []),
  ]
  for (const { kind, probe } of applications)
    if ('missing' in probe) for (const what of probe.missing) lacks.push({ what, for: `${kind} sites` })
  return lacks
}
