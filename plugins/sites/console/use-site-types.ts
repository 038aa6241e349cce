// The site types this installation offers, as the `sites` plugin lists them in `GET /capabilities`.

import { useQuery } from '@tanstack/react-query'
import { consoleApi } from '../../console/kit.ts'

/** One installed site type (`wordpress`). */
export interface SiteTypeInfo {
  readonly name: string
  readonly description: string
  readonly requires: readonly string[]
}

function siteTypesOf(capabilities: { installation: { plugins: { name: string; capabilities: unknown }[] } }) {
  const sites = capabilities.installation.plugins.find((plugin) => plugin.name === 'sites')
  // The capabilities of a plugin are free-form in the API document; read them defensively.
  const listed = (sites?.capabilities as { siteTypes?: unknown } | undefined)?.siteTypes
  if (!Array.isArray(listed)) return []
  return listed.flatMap((entry): SiteTypeInfo[] => {
    const value = entry as Partial<SiteTypeInfo>
    return typeof value.name === 'string'
      ? [{ name: value.name, description: String(value.description ?? ''), requires: value.requires ?? [] }]
      : []
  })
}

/** The installed site types, from the capabilities every page shares. */
export function useSiteTypes() {
  return useQuery({ ...consoleApi.query('/api/v1/capabilities'), staleTime: 300_000, select: siteTypesOf })
}
