// A plan's limits: their order, labels, how they read, and how the plan forms turn fields into a body. The first four
// bound the customer's totals; `cpuPercent`, `memoryMB` and `processes` bound each of its sites.

import { formatCount, numberOf, textOf } from '../../console/kit.ts'
import type { Schemas } from './api.ts'

/** The limit members, in the order the pages show them. */
export const limitKeys = [
  'sites',
  'databases',
  'domains',
  'diskMB',
  'cpuPercent',
  'memoryMB',
  'processes',
] as const
export type LimitKey = (typeof limitKeys)[number]

/** Each limit's field label and column header. */
export const limitLabels: Readonly<Record<LimitKey, string>> = {
  sites: 'Sites',
  databases: 'Databases',
  domains: 'Domains',
  diskMB: 'Disk (MB)',
  cpuPercent: 'CPU per site (% of a core)',
  memoryMB: 'Memory per site (MB)',
  processes: 'Processes per site',
}

/** The limits that bound each site, where an absent member leaves it to the node's defaults. */
const perSite: ReadonlySet<LimitKey> = new Set(['cpuPercent', 'memoryMB', 'processes'])

/**
 * A limit as people read it (disk in MB, as its label says): an absent member is unlimited, or for a limit of each
 * site, left to its node's defaults.
 */
export function formatLimit(limits: Schemas['QuotaLimits'], key: LimitKey): string {
  const value = limits[key]
  if (value === undefined || value === null) return perSite.has(key) ? 'Node default' : 'Unlimited'
  return formatCount(value)
}

/** The limits a create form gives: empty fields are left out (unlimited). */
export function limitsForCreate(data: FormData): Schemas['QuotaLimits'] {
  const limits: Record<string, number> = {}
  for (const key of limitKeys) {
    const value = numberOf(data, `limits.${key}`)
    if (value !== undefined) limits[key] = value
  }
  return limits
}

/** The limits an edit form gives: every member, an empty field as null (which removes the limit). */
export function limitsForUpdate(data: FormData): Record<LimitKey, number | null> {
  const limits = {} as Record<LimitKey, number | null>
  for (const key of limitKeys) limits[key] = numberOf(data, `limits.${key}`) ?? null
  return limits
}

/** What a plan allows of PHP, as its forms send it: the function names of `php.allowFunctions`, comma-separated. */
function allowedFunctionsOf(data: FormData): string[] {
  const text = textOf(data, 'php.allowFunctions') ?? ''
  return [...new Set(text.split(/[\s,]+/).filter((name) => name !== ''))]
}

/** A create form's PHP setting: left out when it allows no function. */
export function phpForCreate(data: FormData): Schemas['PlanPhp'] | undefined {
  const allowFunctions = allowedFunctionsOf(data)
  return allowFunctions.length > 0 ? { allowFunctions } : undefined
}

/** An edit form's PHP setting: null (none allowed) when the field is empty. */
export function phpForUpdate(data: FormData): Schemas['PlanPhp'] | null {
  return phpForCreate(data) ?? null
}
