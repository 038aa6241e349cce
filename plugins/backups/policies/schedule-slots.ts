// Slot arithmetic of scheduled backups: when in the night window (UTC) each site's daily or weekly backup falls,
// spread over the window by a hash of the site's id so a node's sites do not all start at once; whether a slot is
// taken; and when a site's last good backup is overdue.

import { createHash } from 'node:crypto'
import type { ScheduleKind } from '../contract.ts'

const hourMs = 3_600_000
const dayMs = 24 * hourMs
const weekMs = 7 * dayMs
/** 1970-01-05 was a Monday: weeks start on Mondays, 00:00 UTC (ISO 8601). */
const firstMondayMs = 4 * dayMs

/** The hours of the night (UTC) scheduled backups start in. */
export interface ScheduleWindow {
  /** The hour (UTC, 0 to 23) the window opens. Default 1. */
  readonly startHour: number
  /** How many hours it lasts (1 to 24; it may run past midnight). Default 4: 01:00 to 05:00 UTC. */
  readonly hours: number
}

/** The default window: 01:00 to 05:00 UTC. */
export const defaultScheduleWindow: ScheduleWindow = Object.freeze({ startHour: 1, hours: 4 })

/** How long each schedule's slots are apart. */
export const schedulePeriodMs: Readonly<Record<Exclude<ScheduleKind, 'off'>, number>> = {
  daily: dayMs,
  weekly: weekMs,
}

/** Checks a window given as an option; throws on one that is not whole hours within a day. */
export function checkScheduleWindow(window: ScheduleWindow): ScheduleWindow {
  const { startHour, hours } = window
  if (!Number.isInteger(startHour) || startHour < 0 || startHour > 23)
    throw new Error(`backups: scheduleWindow.startHour must be a whole hour from 0 to 23, not ${startHour}`)
  if (!Number.isInteger(hours) || hours < 1 || hours > 24)
    throw new Error(`backups: scheduleWindow.hours must be a whole number from 1 to 24, not ${hours}`)
  return window
}

/** Two numbers in [0, 1) from the site's id: where in the window it falls, and which day of the week (weekly). */
function siteHash(siteId: string): { readonly inWindow: number; readonly weekday: number } {
  const digest = createHash('sha256').update(siteId).digest()
  return { inWindow: digest.readUInt32BE(0) / 2 ** 32, weekday: digest.readUInt32BE(4) % 7 }
}

/**
 * Where the site's slot falls within each period (ms from the period's start: midnight UTC for `daily`, Monday
 * midnight UTC for `weekly`), whole minutes into the window.
 */
export function slotOffsetMs(
  schedule: Exclude<ScheduleKind, 'off'>,
  siteId: string,
  window: ScheduleWindow,
): number {
  const hash = siteHash(siteId)
  const minutes = Math.floor(hash.inWindow * window.hours * 60)
  const inDay = window.startHour * hourMs + minutes * 60_000
  return schedule === 'daily' ? inDay % dayMs : (hash.weekday * dayMs + inDay) % weekMs
}

/** The site's slots either side of `now`: the last at or before it and the first after it; null for `off`. */
export function slotsAround(
  schedule: ScheduleKind,
  siteId: string,
  now: Date,
  window: ScheduleWindow,
): { readonly previous: Date; readonly next: Date } | null {
  if (schedule === 'off') return null
  const period = schedulePeriodMs[schedule]
  const origin = schedule === 'daily' ? 0 : firstMondayMs
  const offset = slotOffsetMs(schedule, siteId, window)
  const periodStart = origin + Math.floor((now.getTime() - origin) / period) * period
  let previous = periodStart + offset
  if (previous > now.getTime()) previous -= period
  return { previous: new Date(previous), next: new Date(previous + period) }
}

/** How many scheduled backups one slot gets at most: the first and two more after failures. */
export const attemptsPerSlot = 3
/** How long after a failed scheduled backup the schedule tries again within the same slot. */
export const retryAfterMs = hourMs

/** A scheduled backup as {@link slotTaken} weighs it. */
export interface SlotAttempt {
  readonly status: string
  readonly createdAt: string
  readonly finishedAt: string | null
}

/**
 * Whether the slot starting at `slot` needs no backup now, from the site's scheduled backups created since it:
 * one running or completed takes it; failed ones leave it open again an hour after the last, three times at most.
 */
export function slotTaken(attempts: readonly SlotAttempt[], slot: Date, now: Date): boolean {
  const since = attempts.filter((attempt) => Date.parse(attempt.createdAt) >= slot.getTime())
  if (since.some((attempt) => attempt.status === 'running' || attempt.status === 'completed')) return true
  if (since.length >= attemptsPerSlot) return true
  const lastEnd = Math.max(0, ...since.map((attempt) => Date.parse(attempt.finishedAt ?? attempt.createdAt)))
  return since.length > 0 && now.getTime() - lastEnd < retryAfterMs
}

/** How long past its schedule's period a site's last good backup may be before it is overdue. Default 6 hours. */
export const defaultOverdueGraceMs = 6 * hourMs

/**
 * Whether a site's backups are overdue: its last good backup (or, without one, the site's creation) is older than
 * its schedule's period and the grace. Never for `off`.
 */
export function isOverdue(
  schedule: ScheduleKind,
  since: { readonly lastGoodAt: string | null; readonly createdAt: string },
  now: Date,
  graceMs: number,
): boolean {
  if (schedule === 'off') return false
  const reference = Date.parse(since.lastGoodAt ?? since.createdAt)
  return now.getTime() - reference > schedulePeriodMs[schedule] + graceMs
}
