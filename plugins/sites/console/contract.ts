// The sites plugin's console contract: what other plugins' console pages may use of its pages, as a plugin's server
// code uses another's contract.ts. A page of a site (a tab other plugins add to `/sites/:id`) in the site's frame,
// the site's one read, a site by name, and a customer's sites.

export type { Schemas as SiteSchemas } from './api.ts'
export { useCustomerSites } from './customer-sites.ts'
export { SiteFrame } from './site-frame.tsx'
export { SiteName } from './site-name.tsx'
export { SiteStateFrame } from './site-state-frame.tsx'
export { siteIsOnNode } from './site-statuses.ts'
export { useSite } from './use-site.ts'
