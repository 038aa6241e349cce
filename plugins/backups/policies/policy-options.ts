// What an installation may set of backup policies' schedule, as the backups plugin's options pass it on.

import {
  checkScheduleWindow,
  defaultOverdueGraceMs,
  defaultScheduleWindow,
  type ScheduleWindow,
} from './schedule-slots.ts'

/** Options of the schedule and the overdue list (the backups plugin's `policies` option). */
export interface PolicyOptions {
  /**
   * The hours of the night (UTC) scheduled backups start in; each site's falls at a time in it its id picks.
   * Default `{ startHour: 1, hours: 4 }`: 01:00 to 05:00 UTC.
   */
  readonly scheduleWindow?: ScheduleWindow
  /**
   * How often the schedule looks for sites whose backup is due (ms); 0 turns it off. Default 60 000 (a minute):
   * a site's backup starts within a minute of its time, or later when its node is busy.
   */
  readonly scheduleIntervalMs?: number
  /**
   * The most backups that run at once on one node (any reason counts): the schedule starts no more there until
   * some end, so a node's fifty sites back up a few at a time, never all at once. Default 2.
   */
  readonly backupsPerNode?: number
  /** How long past its schedule's period a site's last good backup may be before it is overdue (ms). Default 6 hours. */
  readonly overdueGraceMs?: number
  /** The clock the schedule and the overdue list read. Default the system's. */
  readonly now?: () => Date
}

/** {@link PolicyOptions} with every default filled in. */
export type ResolvedPolicyOptions = Required<PolicyOptions>

/** The defaults filled in, the window checked. */
export function resolvePolicyOptions(options: PolicyOptions = {}): ResolvedPolicyOptions {
  const backupsPerNode = options.backupsPerNode ?? 2
  if (!Number.isInteger(backupsPerNode) || backupsPerNode < 1)
    throw new Error(`backups: backupsPerNode must be a whole number of at least 1, not ${backupsPerNode}`)
  return {
    scheduleWindow: checkScheduleWindow(options.scheduleWindow ?? defaultScheduleWindow),
    scheduleIntervalMs: options.scheduleIntervalMs ?? 60_000,
    backupsPerNode,
    overdueGraceMs: options.overdueGraceMs ?? defaultOverdueGraceMs,
    now: options.now ?? (() => new Date()),
  }
}
