// Cron schedules: the standard five fields (minute hour day-of-month month day-of-week) with lists, ranges, steps and
// names (`jan`, `mon`), and the `@hourly`-style aliases; parsed once, and the next times they fire computed in UTC.
// Pure (no store, no clock): the panel, the console's preview and the node-free tests share it.

/** The aliases accepted in place of the five fields, and what each stands for. */
export const scheduleAliases: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
}

/** The longest schedule text accepted. */
export const scheduleMaxLength = 200

const monthNames = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']
const dayNames = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat']

interface FieldSpec {
  readonly name: string
  readonly min: number
  readonly max: number
  /** Names for values (`jan` = 1), case-insensitive. */
  readonly names?: readonly string[]
  readonly namesFrom?: number
}

const fields: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: monthNames, namesFrom: 1 },
  // 7 is Sunday too, as in every cron.
  { name: 'day of week', min: 0, max: 7, names: dayNames, namesFrom: 0 },
]

/** A parsed schedule: the set of values each field matches. */
export interface CronSchedule {
  readonly minutes: ReadonlySet<number>
  readonly hours: ReadonlySet<number>
  readonly days: ReadonlySet<number>
  readonly months: ReadonlySet<number>
  /** 0 (Sunday) to 6. */
  readonly weekdays: ReadonlySet<number>
  /** Whether day-of-month and day-of-week were each restricted (not `*`): both restricted match either (cron's rule). */
  readonly daysRestricted: boolean
  readonly weekdaysRestricted: boolean
}

/** A schedule that cannot be parsed: `message` says which field and why. */
export class ScheduleError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ScheduleError'
  }
}

function value(text: string, spec: FieldSpec): number {
  const lower = text.toLowerCase()
  const named = spec.names?.indexOf(lower) ?? -1
  if (named >= 0) return named + (spec.namesFrom ?? 0)
  if (!/^\d{1,2}$/.test(text))
    throw new ScheduleError(`The ${spec.name} field has “${text}”, not a number or a name.`)
  const number = Number(text)
  if (number < spec.min || number > spec.max)
    throw new ScheduleError(`The ${spec.name} field’s ${number} is outside ${spec.min}–${spec.max}.`)
  return number
}

function parseField(text: string, spec: FieldSpec): Set<number> {
  const values = new Set<number>()
  for (const item of text.split(',')) {
    const [range, stepText, extra] = item.split('/')
    if (range === undefined || range === '' || extra !== undefined)
      throw new ScheduleError(`The ${spec.name} field has an empty or malformed item “${item}”.`)
    let step = 1
    if (stepText !== undefined) {
      if (!/^\d{1,2}$/.test(stepText) || Number(stepText) === 0)
        throw new ScheduleError(`The ${spec.name} field’s step “${stepText}” is not a number from 1.`)
      step = Number(stepText)
    }
    let low: number
    let high: number
    if (range === '*') {
      low = spec.min
      high = spec.max
    } else if (range.includes('-')) {
      const [from, to, more] = range.split('-')
      if (from === undefined || to === undefined || more !== undefined)
        throw new ScheduleError(`The ${spec.name} field has a malformed range “${range}”.`)
      low = value(from, spec)
      high = value(to, spec)
      if (low > high) throw new ScheduleError(`The ${spec.name} field’s range “${range}” runs backwards.`)
    } else {
      low = value(range, spec)
      // `5/15` is “from 5, every 15”, as Vixie cron reads it.
      high = stepText === undefined ? low : spec.max
    }
    for (let at = low; at <= high; at += step) values.add(at)
  }
  return values
}

/** Parses `text` (five fields or an alias); throws a {@link ScheduleError} saying what is wrong. */
export function parseSchedule(text: string): CronSchedule {
  if (text.length > scheduleMaxLength)
    throw new ScheduleError(`A schedule is at most ${scheduleMaxLength} characters.`)
  const trimmed = text.trim()
  if (trimmed.startsWith('@')) {
    const expanded = scheduleAliases[trimmed.toLowerCase()]
    if (!expanded)
      throw new ScheduleError(
        `“${trimmed}” is not an alias this panel knows (${Object.keys(scheduleAliases).join(', ')}).`,
      )
    return parseSchedule(expanded)
  }
  if (!/^[0-9A-Za-z*,/\- \t]*$/.test(trimmed))
    throw new ScheduleError('A schedule holds only digits, names, `*`, `,`, `-`, `/` and spaces.')
  const parts = trimmed.split(/[ \t]+/).filter((part) => part !== '')
  if (parts.length !== 5)
    throw new ScheduleError(
      `A schedule has five fields (minute hour day-of-month month day-of-week), not ${parts.length}.`,
    )
  const [minute, hour, day, month, weekday] = parts.map((part, index) =>
    parseField(part, fields[index] as FieldSpec),
  ) as [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>]
  if (weekday.delete(7)) weekday.add(0)
  const schedule: CronSchedule = {
    minutes: minute,
    hours: hour,
    days: day,
    months: month,
    weekdays: weekday,
    daysRestricted: !(parts[2] as string).startsWith('*'),
    weekdaysRestricted: !(parts[4] as string).startsWith('*'),
  }
  if (nextRuns(schedule, new Date(Date.UTC(2000, 0, 1)), 1).length === 0)
    throw new ScheduleError('The schedule never fires (no such day in any month it names).')
  return schedule
}

/** Whether `text` is a schedule; answers the reason when it is not. */
export function scheduleProblem(text: string): string | null {
  try {
    parseSchedule(text)
    return null
  } catch (error) {
    if (error instanceof ScheduleError) return error.message
    throw error
  }
}

function dayMatches(schedule: CronSchedule, at: Date): boolean {
  const day = schedule.days.has(at.getUTCDate())
  const weekday = schedule.weekdays.has(at.getUTCDay())
  if (schedule.daysRestricted && schedule.weekdaysRestricted) return day || weekday
  return day && weekday
}

/** Days searched for the next time before a schedule is taken to never fire (Feb 29 on a given weekday: 28 years). */
const searchDays = 366 * 29

/**
 * The next `count` times (UTC minutes) strictly after `after` at which `schedule` fires.
 * @example nextRuns(parseSchedule('*\/15 * * * *'), new Date('2026-01-01T00:07:00Z'), 2) // 00:15, 00:30
 */
export function nextRuns(schedule: CronSchedule, after: Date, count: number): Date[] {
  const found: Date[] = []
  const at = new Date(after.getTime())
  at.setUTCSeconds(0, 0)
  at.setUTCMinutes(at.getUTCMinutes() + 1)
  const limit = after.getTime() + searchDays * 86_400_000
  while (found.length < count && at.getTime() <= limit) {
    if (!schedule.months.has(at.getUTCMonth() + 1) || !dayMatches(schedule, at)) {
      at.setUTCHours(0, 0, 0, 0)
      at.setUTCDate(at.getUTCDate() + 1)
      continue
    }
    if (!schedule.hours.has(at.getUTCHours())) {
      at.setUTCMinutes(0, 0, 0)
      at.setUTCHours(at.getUTCHours() + 1)
      continue
    }
    if (schedule.minutes.has(at.getUTCMinutes())) found.push(new Date(at.getTime()))
    at.setUTCMinutes(at.getUTCMinutes() + 1)
  }
  return found
}

/** The next time `text` fires after `after`, or null for one that never does (or is not a schedule). */
export function nextRunOf(text: string, after: Date): Date | null {
  try {
    return nextRuns(parseSchedule(text), after, 1)[0] ?? null
  } catch {
    return null
  }
}
