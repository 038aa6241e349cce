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
