// The states a site can be in, as the API's `status` filter and field name them.

import type { Schemas } from './api.ts'

export const siteStatuses: readonly Schemas['Site']['status'][] = [
  'provisioning',
  'active',
  'suspended',
  'failed',
  'deleting',
]

/** States in which a job is working on the site, so its page keeps reading it. */
export function isBusy(status: string): boolean {
  return status === 'provisioning' || status === 'deleting'
}

/**
 * Whether a site is laid out on its node: the tabs that work in it (files, terminal, WordPress) and suspension show
 * for such a site only, not for one being set up, failed or being deleted, where the API would refuse them.
 * @example tab: { of: '/sites/:id', label: 'Files', shownFor: siteIsOnNode }
 */
export function siteIsOnNode(site: Readonly<Record<string, unknown>>): boolean {
  return site.status === 'active' || site.status === 'suspended'
}
