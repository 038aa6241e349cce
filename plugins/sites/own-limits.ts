// A site's own CPU, memory and process limits, set over its plan's and its node's by platform staff alone: they run
// the nodes these limits share out, while a customer's own people (and a brand's staff) stay within what they sell.

import { type Caller, Problem } from '../../core/index.ts'
import type { SitesTable } from './migrations.ts'
import { sitesProblems } from './problems.ts'
import { ownLimitColumns, type SiteLimitName, siteLimitNames } from './site-limits.ts'

/** What a change asks of a site's own limits: a member given sets it (null: none of its own). */
export type OwnLimitsChange = Partial<Record<SiteLimitName, number | null>>

/** Whether `caller` may set a site's own limits: platform staff, not through a token limited to one customer. */
export const setsSiteLimits = (caller: Caller): boolean =>
  caller.kind === 'platform' && !caller.token?.customerId

/** Refuses, before anything is written, a change of a site's own limits by anyone but platform staff. */
export function refuseOwnLimitsUnlessStaff(caller: Caller, change: OwnLimitsChange): void {
  const asked = siteLimitNames.filter((name) => change[name] !== undefined)
  if (asked.length === 0 || setsSiteLimits(caller)) return
  throw new Problem(sitesProblems.limit_override_staff_only, {
    extensions: { fields: asked.map((name) => `body.limits.${name}`) },
  })
}

/** The columns a change moves: only the members given and different from what the site holds. */
export function ownLimitChanges(row: SitesTable, change: OwnLimitsChange): Partial<SitesTable> {
  const changes: Partial<SitesTable> = {}
  for (const name of siteLimitNames) {
    const value = change[name]
    const column = ownLimitColumns[name]
    if (value !== undefined && value !== row[column]) changes[column] = value
  }
  return changes
}

/** The audit details of those columns, by the API's names. */
export function ownLimitDetails(changes: Partial<SitesTable>): Record<string, number | null> {
  const details: Record<string, number | null> = {}
  for (const name of siteLimitNames) {
    const value = changes[ownLimitColumns[name]]
    if (value !== undefined) details[name] = value
  }
  return details
}
