// Domains no site may take: the host names the panel is reached at, brands' sign-in host names, and every name
// under one of them (a site there could set cookies for the name above it, and would look like the panel).

import { fieldProblem, type PluginContext, type Problem, type Trx } from '../../core/index.ts'
import { brandHostnames } from '../brands/contract.ts'
import { sitesProblems } from './problems.ts'

/**
 * The refusal of a normalised domain no site may take, or null when a site may have it. `onPluginDomain`: the site is
 * made by a plugin for a name under one of `pluginDomains` (a staging copy), which others may not take.
 */
export type DomainReservations = (
  trx: Trx,
  domain: string,
  options?: { readonly onPluginDomain?: boolean },
) => Promise<Problem | null>

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
  pluginDomains: readonly string[] = [],
): DomainReservations {
  const brands = context.use(brandHostnames)
  const refusal = (message: string) => fieldProblem(sitesProblems.domain_reserved, 'body.domain', message)
  return async (trx, domain, options = {}) => {
    const above = namesAbove(domain)
    // A provider's staging domain (a wildcard record at its nodes): its names are staging copies', made by their
    // plugin, never a site's a customer names (which could squat another customer's staging copy's name).
    const plugin = above.find((name) => pluginDomains.includes(name))
    if (plugin !== undefined && options.onPluginDomain !== true)
      return refusal(
        plugin === domain
          ? 'is the installation’s staging domain'
          : `is under ${plugin}, the installation’s staging domain: only staging copies take its names`,
      )
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
