// Tenancy as data: the set of customers a caller may see, which every read and list goes through.

import type { Caller } from '../auth/caller.ts'
import { defineService } from '../plugin/service.ts'

/** What a caller may see: everything, or only some customers (and what they own). */
export type TenantView =
  | { readonly kind: 'all' }
  | { readonly kind: 'customers'; readonly customerIds: readonly string[] }

/** The view of a caller: platform staff see all, a customer-limited token sees its customer only. */
export function tenantViewOf(caller: Caller): TenantView {
  if (caller.token?.customerId) return { kind: 'customers', customerIds: [caller.token.customerId] }
  if (caller.kind === 'platform') return { kind: 'all' }
  // Brand staff and team members get their views with the identity issue; until then they see nothing.
  return { kind: 'customers', customerIds: [] }
}

/** Whether a resource owned by `customerId` is inside the view. */
export function viewIncludes(view: TenantView, customerId: string): boolean {
  return view.kind === 'all' || view.customerIds.includes(customerId)
}

/** What the kernel needs to know of customers to check a token's limit; filled by the customers plugin. */
export interface TenantDirectory {
  /** The customer with this id, or null when there is none. */
  findCustomer(customerId: string): Promise<{ readonly id: string } | null>
}

/** The kernel slot a customers plugin fills so tokens limited to a customer can be checked. */
export const tenantDirectoryService = defineService<TenantDirectory>({
  id: 'kernel.tenantDirectory',
  owner: 'kernel',
  description: 'Looks customers up for the kernel (token limits, tenancy). Provided by the customers plugin.',
})
