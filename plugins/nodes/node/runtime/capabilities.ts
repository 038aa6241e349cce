// What a node lacks, in words an operator acts on: the programs serving needs, and what each application its
// modules offer needs besides (`npm run panel -- node setup` installs them all).

import type { NodeLack, NodePrograms } from '../contract.ts'

/** An application's probe, by its kind. */
export interface ProbedApplication {
  readonly kind: string
  readonly probe: { readonly version: string } | { readonly missing: readonly string[] }
}

/**
 * What the node lacks: nginx and PHP-FPM to serve (unless it was told to lay out files only), root to give each
 * site a Unix user, and what each application needs.
 */
export function lacksOf(
  programs: NodePrograms,
  applications: readonly ProbedApplication[],
  how: { readonly filesOnly: boolean; readonly root: boolean },
): NodeLack[] {
  if (how.filesOnly) return []
  const serving = 'serving sites'
  const lacks: NodeLack[] = [
    ...(programs.nginx ? [] : [{ what: 'nginx', for: serving }]),
    ...(programs.phpFpm ? [] : [{ what: 'php-fpm', for: serving }]),
    ...(how.root ? [] : [{ what: 'root (a Unix user per site)', for: serving }]),
  ]
  for (const { kind, probe } of applications)
    if ('missing' in probe) for (const what of probe.missing) lacks.push({ what, for: `${kind} sites` })
  return lacks
}
