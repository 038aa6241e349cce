// Where a site stands against its policy: its last good backup, when its next scheduled backup is due, whether it
// is due now (the schedule) and whether it is overdue (staff's list).

import type { ScheduleKind } from '../contract.ts'
import type { ResolvedPolicyOptions } from './policy-options.ts'
import { isOverdue, type SlotAttempt, slotsAround, slotTaken } from './schedule-slots.ts'

/** A site's standing. */
export interface PolicyStanding {
  readonly lastGoodBackupAt: string | null
  /** When its next scheduled backup is due: its current slot's start while that slot is open, else the next. */
  readonly nextDueAt: string | null
  /** Whether the schedule should start its backup now (its slot is open). */
  readonly due: boolean
  readonly overdue: boolean
}

/** What a standing is worked out from. */
export interface StandingFacts {
  readonly schedule: ScheduleKind
  readonly site: { readonly id: string; readonly createdAt: string }
  readonly lastGoodAt: string | null
  /** The site's scheduled backups created since its last slot (or earlier: older ones are not counted). */
  readonly attempts: readonly SlotAttempt[]
}

/** The site's standing at the options' `now`. */
export function policyStanding(
  facts: StandingFacts,
  options: ResolvedPolicyOptions,
  now: Date,
): PolicyStanding {
  const slots = slotsAround(facts.schedule, facts.site.id, now, options.scheduleWindow)
  const overdue = isOverdue(
    facts.schedule,
    { lastGoodAt: facts.lastGoodAt, createdAt: facts.site.createdAt },
    now,
    options.overdueGraceMs,
  )
  if (!slots) return { lastGoodBackupAt: facts.lastGoodAt, nextDueAt: null, due: false, overdue }
  // A slot before the site existed is not its: its first is the first after its creation.
  const due =
    slots.previous.getTime() >= Date.parse(facts.site.createdAt) &&
    !slotTaken(facts.attempts, slots.previous, now)
  return {
    lastGoodBackupAt: facts.lastGoodAt,
    nextDueAt: (due ? slots.previous : slots.next).toISOString(),
    due,
    overdue,
  }
}
