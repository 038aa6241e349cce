// The checks every site spec passes before the runtime names a path, a user, a pool or a server block after it.

import type { SiteSpec } from '../contract.ts'
import { NodeFailure } from '../contract.ts'
import { servingRedirectsProblem } from './site-redirects.ts'
import { phpServingProblem } from './site-serving.ts'
import { checkCacheSpec } from './site-spec-cache.ts'

// Ids and handles become directory, file, pool and user names: one path segment, no dots, nothing to escape.
const idPattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/
const handlePattern = /^[a-z0-9][a-z0-9-]{0,62}$/
const domainPattern = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(?:\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/
// Inside nginx's double quotes `"` and `\` end or escape the string and `$` starts a variable; in PHP-FPM's ini
// files `"`, `$` and `;` mean something too; and `:` separates the paths of `open_basedir`.
const appKindPattern = /^[a-z][a-z0-9-]{0,31}$/
const isRecord = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value)
const unsafeForConfig = /["\\$;:\p{Cc}]/u
// A PHP function's name as `disable_functions` lists them (comma-separated, in a quoted ini value).
const functionPattern = /^[a-z_][a-z0-9_]{0,63}$/
const maxAllowedFunctions = 64

/** Whether `id` may name a site's directory, files and pool: the pattern every site id passes. */
export const isSafeSiteId = (id: unknown): id is string => typeof id === 'string' && idPattern.test(id)

/**
 * Refuses a site the runtime cannot safely lay out: an id or handle that could leave `<dataDir>/sites/` or a domain
 * that could inject nginx directives. A {@link NodeFailure}, since repeating the job cannot fix it.
 */
export function checkSiteSpec(site: SiteSpec): void {
  const fail = (what: string) => {
    throw new NodeFailure(`The node refuses site ${JSON.stringify(site.id)}: ${what}`, 'unsafe_site_spec')
  }
  if (!idPattern.test(site.id)) fail('its id is not a safe directory name')
  if (!handlePattern.test(site.handle)) fail('its handle is not a safe name')
  if (!domainPattern.test(site.domain)) fail('its domain is not a lower-case host name')
  if (!idPattern.test(site.customerId)) fail('its customer id is not a plain identifier')
  if (site.diskMB !== null && !(Number.isSafeInteger(site.diskMB) && site.diskMB >= 0))
    fail('its disk quota is not a whole number of MB')
  const allowed = site.allowFunctions
  if (
    allowed !== undefined &&
    !(
      Array.isArray(allowed) &&
      allowed.length <= maxAllowedFunctions &&
      allowed.every((name) => typeof name === 'string' && functionPattern.test(name))
    )
  )
    fail(`its allowed functions are not a list of at most ${maxAllowedFunctions} PHP function names`)
  if (site.app !== undefined && !(appKindPattern.test(site.app.kind) && isRecord(site.app.settings)))
    fail('its application is not named as applications are, or has no settings')
  const phpServing = phpServingProblem(site)
  if (phpServing) fail(phpServing)
  checkCacheSpec(site)
  const redirects = servingRedirectsProblem(site.serving, site.domain)
  if (redirects) fail(redirects)
}

/** Throws when `path` (a data directory, made absolute) could not be written into nginx's or PHP-FPM's files. */
export function checkConfigPath(path: string): void {
  if (unsafeForConfig.test(path))
    throw new Error(
      `The site runtime cannot use ${JSON.stringify(path)}: it contains " \\ $ ; : or a control character`,
    )
}
