// The query's filters as the node reads them: `status` (`404`, `5xx`, `400-499`, comma-separated) as ranges, and
// `since` as an ISO time. Declared formats, so a bad value is one `errors[]` item with its own code.

import { defineFormat } from '../../core/index.ts'
import { logsProblems } from './problems.ts'

/** `status` as inclusive ranges, or null when it is not a filter this plugin reads. */
export function statusRanges(text: string): [number, number][] | null {
  const items = text.split(',').map((item) => item.trim())
  if (items.length === 0 || items.length > 20) return null
  const ranges: [number, number][] = []
  for (const item of items) {
    let range: [number, number] | null = null
    if (/^[1-5]xx$/i.test(item)) range = [Number(item[0]) * 100, Number(item[0]) * 100 + 99]
    else if (/^\d{3}$/.test(item)) range = [Number(item), Number(item)]
    else {
      const match = /^(\d{3})-(\d{3})$/.exec(item)
      if (match) range = [Number(match[1]), Number(match[2])]
    }
    if (!range || range[0] < 100 || range[1] > 599 || range[0] > range[1]) return null
    ranges.push(range)
  }
  return ranges
}

/** An ISO 8601 time with its date, time and zone. */
export const isIsoTime = (text: string) =>
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i.test(text) &&
  !Number.isNaN(Date.parse(text))

export const StatusFilter = defineFormat({
  name: 'log-status-filter',
  check: (text) => statusRanges(text) !== null,
  problem: logsProblems.invalid_status_filter,
})

export const SinceTime = defineFormat({
  name: 'log-since-time',
  check: isIsoTime,
  problem: logsProblems.invalid_since,
})
