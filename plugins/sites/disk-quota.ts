// Sites' disk quotas against their customer's disk limit: while disk is limited every site needs a quota, and a new
// site without one gets an even share of what is left (docs/billing.md, Disk).

import { type CustomerQuota, fieldProblem, Problem } from '../../core/index.ts'
import { sitesProblems } from './problems.ts'

/** Where a site's disk quota is given, in creates and changes alike. */
const location = 'body.limits.diskMB'

/** Whether every site of the customer needs a disk quota: its disk is limited (and it may create at all). */
function diskLimited(quota: CustomerQuota): boolean {
  return (quota.limits.diskMB?.limit ?? null) !== null && quota.source !== 'suspended'
}

/** Refuses a site without a quota (`diskMB` null) while the customer's disk is limited: 422 `disk_quota_required`. */
export function requireDiskQuota(quota: CustomerQuota, diskMB: number | null): void {
  if (diskMB === null && diskLimited(quota)) {
    throw fieldProblem(
      sitesProblems.disk_quota_required,
      location,
      `The customer’s disk is limited to ${quota.limits.diskMB?.limit} MB, so every site needs a disk quota.`,
    )
  }
}

/**
 * The disk quota of a new site: as asked (null: none, refused while disk is limited); when not asked and disk is
 * limited, the free disk divided by the free site slots, so a plan's disk spreads over its sites. With sites
 * unlimited there are no slots to divide by, and the first site would take all of it: the quota must be given
 * (422 `disk_quota_required`). With no slot left, null: the sites limit refuses the create, not the disk.
 * @example a fresh `{ sites: 3, diskMB: 1000 }` customer's sites get 333, then 333, then 334 MB
 */
export function newSiteDiskQuota(quota: CustomerQuota, asked: number | null | undefined): number | null {
  if (asked !== undefined) {
    requireDiskQuota(quota, asked)
    return asked
  }
  const disk = quota.limits.diskMB
  if (!disk || !diskLimited(quota) || disk.available === null) return null
  const slots = quota.limits.sites?.available ?? null
  if (slots === null) requireDiskQuota(quota, null)
  if (slots === 0 || slots === null) return null
  const share = Math.floor(disk.available / slots)
  if (share === 0)
    throw new Problem(sitesProblems.disk_limit_reached, {
      extensions: { metric: 'diskMB', limit: disk.limit, used: disk.used, requested: 0 },
    })
  return share
}
