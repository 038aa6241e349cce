// Limits as data: what plugins declare plans may limit, how several plans' limits add up, how a setting is read.

import { type TObject, Type as t } from '@sinclair/typebox'

/** Limits by metric name: a whole number ≥ 0, or absent for no limit. `{}` limits nothing. */
export type QuotaLimits = Readonly<Record<string, number>>

/** A metric plans may limit, as the catalogue knows it. */
export interface QuotaMetric {
  readonly name: string
  /** What the limit means (`How many sites the customer may have.`). */
  readonly description: string
  /** The least a plan may set; default 0. */
  readonly minimum?: number
  /** The most a plan may set; default 1 000 000 000. */
  readonly maximum?: number
}

/** The most any limit may be where its metric sets no maximum of its own. */
export const quotaLimitMaximum = 1_000_000_000

/** The `limits` object of plans (and of the installation's defaults), one member per declared metric. */
export function quotaLimitsSchema(metrics: readonly QuotaMetric[]): TObject {
  return t.Object(
    Object.fromEntries(
      metrics.map((metric) => [
        metric.name,
        t.Optional(
          t.Integer({
            minimum: metric.minimum ?? 0,
            maximum: metric.maximum ?? quotaLimitMaximum,
            description: metric.description,
          }),
        ),
      ]),
    ),
    {
      $id: 'QuotaLimits',
      description: 'Limits by resource; an absent member means no limit. Integers of at least 0.',
    },
  )
}

/**
 * The limits of several arrangements held at once (a customer's live subscriptions): each metric is the sum of
 * theirs (or what `merge` makes of them: the largest, for a limit on each resource), and unlimited as soon as one of
 * them leaves it unlimited.
 * @example combineLimits(['sites', 'diskMB'], [{ sites: 2 }, { sites: 3, diskMB: 100 }]) // { sites: 5 }
 */
export function combineLimits(
  metrics: readonly string[],
  list: readonly QuotaLimits[],
  merge: (a: number, b: number) => number = (a, b) => a + b,
): QuotaLimits {
  const combined: Record<string, number> = {}
  for (const metric of metrics) {
    let total: number | null = null
    let limited = list.length > 0
    for (const limits of list) {
      const value = limits[metric]
      if (value === undefined) {
        limited = false
        break
      }
      total = total === null ? value : merge(total, value)
    }
    if (limited && total !== null) combined[metric] = total
  }
  return combined
}

/**
 * Combines limits on each resource (a site's CPU) across plans: the largest any plan sets. A plan that sets none
 * leaves it to what applies without one (a node's default), so it neither lifts nor lowers the others': a customer
 * adding a plan for more sites keeps its sites' CPU.
 * @example largestSetLimits(['cpuPercent'], [{ cpuPercent: 400 }, {}, { cpuPercent: 200 }]) // { cpuPercent: 400 }
 */
export function largestSetLimits(metrics: readonly string[], list: readonly QuotaLimits[]): QuotaLimits {
  const combined: Record<string, number> = {}
  for (const metric of metrics)
    for (const limits of list) {
      const value = limits[metric]
      if (value !== undefined) combined[metric] = Math.max(combined[metric] ?? value, value)
    }
  return combined
}

/** Refuses limits that are not whole numbers ≥ 0 of known metrics (settings; the API has its schema). */
export function checkQuotaLimits(
  metrics: readonly (string | QuotaMetric)[],
  limits: Readonly<Record<string, unknown>>,
): QuotaLimits {
  const known = new Map(
    metrics.map((metric) =>
      typeof metric === 'string' ? [metric, { name: metric }] : [metric.name, metric],
    ),
  )
  const checked: Record<string, number> = {}
  for (const [name, value] of Object.entries(limits)) {
    const metric = known.get(name) as Partial<QuotaMetric> | undefined
    if (!metric)
      throw new Error(
        `Unknown limit "${name}"; limits are ${[...known.keys()].join(', ') || 'none (no plugin declares one)'}`,
      )
    if (value === undefined) continue
    const least = metric.minimum ?? 0
    const most = metric.maximum ?? Number.MAX_SAFE_INTEGER
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < least || value > most)
      throw new Error(
        `Limit ${name} must be a whole number of at least ${least}${metric.maximum === undefined ? '' : ` and at most ${most}`}, not ${String(value)}`,
      )
    checked[name] = value
  }
  return checked
}

/**
 * Reads limits from a setting such as `DEFAULT_CUSTOMER_LIMITS`: comma-separated `metric=value` pairs; an empty
 * setting limits nothing. Malformed settings throw rather than fall back to no limit; which metrics exist is
 * checked when the panel knows its plugins.
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
  return pairs
}
