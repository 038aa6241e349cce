// Domains no site may take: the host names the panel is reached at, brands' sign-in host names, and every name
// under one of them (a site there could set cookies for the name above it, and would look like the panel).

import { fieldProblem, type PluginContext, type Problem, type Trx } from '../../core/index.ts'
import { brandHostnames } from '../brands/contract.ts'
import { sitesProblems } from './problems.ts'

/** The refusal of a normalised domain no site may take, or null when a site may have it. */
export type DomainReservations = (trx: Trx, domain: string) => Promise<Problem | null>

/** The names a domain is or is under, down to two labels: `a.shop.example.com` → itself, `shop.example.com`, `example.com`. */
function namesAbove(domain: string): string[] {
  const labels = domain.split('.')
  return labels.slice(0, -1).map((_label, index) => labels.slice(index).join('.'))
}

/**
 * The check of `panelHostnames` (the panel's own host names, lower case: `PUBLIC_URL`'s) and of the brands' sign-in
 * host names, read in the deciding transaction.
 */
export function domainReservations(
  context: PluginContext,
  panelHostnames: readonly string[],
): DomainReservations {
  const brands = context.use(brandHostnames)
  const refusal = (message: string) => fieldProblem(sitesProblems.domain_reserved, 'body.domain', message)
  return async (trx, domain) => {
    const above = namesAbove(domain)
    const panel = above.find((name) => panelHostnames.includes(name))
    if (panel !== undefined)
      return refusal(
        panel === domain ? 'is the panel’s host name' : `is under ${panel}, the panel’s host name`,
      )
    const [brand] = await brands.taken(trx, above)
    if (brand !== undefined)
      return refusal(
        brand === domain
          ? 'is a brand’s sign-in host name'
          : `is under ${brand}, a brand’s sign-in host name`,
      )
    return null
  }
}
