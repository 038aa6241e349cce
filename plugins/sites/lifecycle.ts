// The site state machine: which state may follow which. Every status change of a site goes through `transition`.

import { Problem } from '../../core/index.ts'
import type { siteStatuses } from './contract.ts'
import { sitesProblems } from './problems.ts'

export type SiteStatus = (typeof siteStatuses)[number]

/**
 * The legal transitions (docs/sites.md has the same table). `deleting` ends with the site gone; `failed` is where
 * a provisioning that ran out of attempts lands, and can only be deleted.
 */
export const siteTransitions: Readonly<Record<SiteStatus, readonly SiteStatus[]>> = {
  provisioning: ['active', 'failed'],
  active: ['suspended', 'deleting'],
  suspended: ['active', 'deleting'],
  failed: ['deleting'],
  deleting: [],
}

/** Whether a site may go from `from` to `to`. */
export function canTransition(from: SiteStatus, to: SiteStatus): boolean {
  return siteTransitions[from].includes(to)
}

/** Refuses an illegal transition with 409 `illegal_site_transition`, naming both states. */
export function assertTransition(from: SiteStatus, to: SiteStatus): void {
  if (!canTransition(from, to)) {
    throw new Problem(sitesProblems.illegal_site_transition, {
      detail: `A site that is ${from} cannot become ${to}.`,
      extensions: { status: from, requested: to },
    })
  }
}
