// How a plugin (or the kernel) declares the refusals it can answer with: one table, rendered once.

import { statusTitles } from './status-titles.ts'

/** One entry of a problem catalogue: what the client sees and what the docs say about it. */
export interface ProblemCode {
  /** HTTP status answered with this code. */
  readonly status: number
  /** The default `detail`: a sentence a person can read. Individual refusals may say more. */
  readonly detail: string
  /** For the catalogue in `docs/` and the OpenAPI document: when this happens and what to do. */
  readonly description: string
}

/** A catalogue: snake_case code → entry. */
export type ProblemCatalogue = Readonly<Record<string, ProblemCode>>

/** A code of a catalogue, carried around with its entry so throwing it needs no lookup. */
export interface ProblemRef extends ProblemCode {
  readonly code: string
}

const problemCodePattern = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/

/**
 * Declares a catalogue of problem codes; returns refs keyed by code so code names are checked by the compiler.
 * @example const problems = defineProblems({ unknown_site_type: { status: 422, detail: '…', description: '…' } })
 */
export function defineProblems<const C extends Record<string, ProblemCode>>(
  catalogue: C,
): { readonly [K in keyof C & string]: ProblemRef } {
  const refs: Record<string, ProblemRef> = {}
  for (const [code, entry] of Object.entries(catalogue)) {
    if (!problemCodePattern.test(code)) throw new Error(`Problem code "${code}" must be snake_case`)
    // A problem's title is its status's reason phrase: a status without a registered one would be "Client Error".
    if (statusTitles[entry.status] === undefined)
      throw new Error(`Problem code "${code}" has status ${entry.status}, not a registered HTTP error status`)
    refs[code] = Object.freeze({ code, ...entry })
  }
  return refs as { readonly [K in keyof C & string]: ProblemRef }
}

/**
 * The refusal of a usage metric's limit (422), as every counted resource words it: the entry of its code in the
 * plugin's `defineProblems`, named by the metric (`dnsZones`) and what it counts in words (`DNS zones`). The quota's
 * refusal carries `limit` and `used`.
 * @example dns_zone_limit_reached: limitReached('dnsZones', 'DNS zones')
 */
export function limitReached(metric: string, items: string): ProblemCode {
  return {
    status: 422,
    detail: `The customer already has as many ${items} as its limits allow.`,
    description: `Creating one more would pass the customer’s \`${metric}\` limit (its plans, or the installation’s defaults). \`limit\` and \`used\` say where it stands; remove one or move to a larger plan.`,
  }
}
