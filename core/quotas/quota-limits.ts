// Plan limits as data: what a customer may hold (sites, databases, domains, disk), how limits add up, how they are
// read from a setting, and their schema in the API.

import { Type as t } from '@sinclair/typebox'

/** What plans limit. Each is also a usage counter kept per customer (`adjustUsage`). */
export const quotaMetrics = ['sites', 'databases', 'domains', 'diskMB'] as const
export type QuotaMetric = (typeof quotaMetrics)[number]

/** Limits by metric: a whole number ≥ 0, or absent for no limit. `{}` limits nothing. */
export type QuotaLimits = { readonly [M in QuotaMetric]?: number }

const limit = (description: string) =>
  t.Optional(t.Integer({ minimum: 0, maximum: 1_000_000_000, description }))

/** The `limits` object of plans (and of the installation's defaults): absent members are unlimited. */
export const QuotaLimitsSchema = t.Object(
  {
    sites: limit('How many sites the customer may have.'),
    databases: limit('How many databases the customer may have.'),
    domains: limit('How many domains the customer’s sites may serve (each site has one).'),
    diskMB: limit(
      'Disk, in MB, the customer’s sites may be given in total (the sum of their `limits.diskMB`).',
    ),
  },
  {
    $id: 'QuotaLimits',
    description: 'Limits by resource; an absent member means no limit. Integers of at least 0.',
  },
)

/**
 * The limits of several arrangements held at once (a customer's live subscriptions): each metric is the sum of
 * theirs, and unlimited as soon as one of them leaves it unlimited.
 * @example combineLimits([{ sites: 2 }, { sites: 3, diskMB: 100 }]) // { sites: 5 }
 */
export function combineLimits(list: readonly QuotaLimits[]): QuotaLimits {
  const combined: { [M in QuotaMetric]?: number } = {}
  for (const metric of quotaMetrics) {
    let total = 0
    let limited = list.length > 0
    for (const limits of list) {
      const value = limits[metric]
      if (value === undefined) {
        limited = false
        break
      }
      total += value
    }
    if (limited) combined[metric] = total
  }
  return combined
}

/** Refuses limits that are not whole numbers ≥ 0 of known metrics (start-up settings; the API has its schema). */
export function checkQuotaLimits(limits: Readonly<Record<string, unknown>>): QuotaLimits {
  const checked: { [M in QuotaMetric]?: number } = {}
  for (const [name, value] of Object.entries(limits)) {
    if (!(quotaMetrics as readonly string[]).includes(name))
      throw new Error(`Unknown limit "${name}"; limits are ${quotaMetrics.join(', ')}`)
    if (value === undefined) continue
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
      throw new Error(`Limit ${name} must be a whole number of at least 0, not ${String(value)}`)
    checked[name as QuotaMetric] = value
  }
  return checked
}

/**
 * Reads limits from a setting such as `DEFAULT_CUSTOMER_LIMITS`: comma-separated `metric=value` pairs; an empty
 * setting limits nothing. Malformed settings throw rather than fall back to no limit.
 * @example parseQuotaLimits('sites=1,domains=1,diskMB=1024') // { sites: 1, domains: 1, diskMB: 1024 }
 */
export function parseQuotaLimits(setting: string): QuotaLimits {
  const pairs: Record<string, number> = {}
  for (const part of setting.split(',')) {
    const item = part.trim()
    if (item === '') continue
    const match = /^([A-Za-z]+)\s*=\s*([0-9]{1,10})$/.exec(item)
    if (!match?.[1] || match[2] === undefined)
      throw new Error(`Limits are written metric=value, separated by commas; "${item}" is not`)
    if (match[1] in pairs) throw new Error(`Limit ${match[1]} is given twice`)
    pairs[match[1]] = Number(match[2])
  }
  return checkQuotaLimits(pairs)
}
