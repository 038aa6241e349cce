// Cron schedules as crontab(5) writes them: five fields, each a list of `*`, numbers, ranges and steps within the
// field's bounds (minute, hour, day of month, month, day of week), or a shorthand such as `@daily`.

const lowest = [0, 0, 1, 1, 0]
const highest = [59, 23, 31, 12, 7]
const part = /^(?:\*|(\d{1,2})(?:-(\d{1,2}))?)(?:\/([1-9]\d?))?$/

/** Whether `field` (`*`, `5`, `1-5,10`, `*\/15`, `10-50/5`) stays within `min`..`max`. */
function fieldValid(field: string, min: number, max: number): boolean {
  return field.split(',').every((item) => {
    const [matched, from, to = from] = part.exec(item) ?? []
    if (matched === undefined || from === undefined) return matched !== undefined
    return min <= +from && +from <= +(to ?? from) && +(to ?? from) <= max
  })
}

/** Whether `schedule` is a cron schedule. */
export function isSchedule(schedule: string): boolean {
  const fields = schedule.trim().split(/\s+/)
  if (/^@(yearly|annually|monthly|weekly|daily|midnight|hourly)$/.test(schedule.trim())) return true
  return fields.length === 5 && fields.every((field, i) => fieldValid(field, lowest[i] ?? 0, highest[i] ?? 0))
}
