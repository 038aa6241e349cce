// Reviews a token request for a caller: the one place the API and the CLI decide what a new token may be.

import { type Caller, customerInView, scopesOnCustomer } from '../auth/caller.ts'
import type { ProblemItem } from '../problem/problem.ts'
import type { Db } from '../store/store.ts'
import type { TenantDirectory } from '../tenancy/tenant-view.ts'
import { checkTokenRequest, type TokenLifetimePolicy, type TokenRequest } from './api-tokens.ts'

/**
 * The refusals of `request` made by `caller` (empty when the token may be issued): the customer must exist inside
 * the caller's view, and a token limited to a customer may hold only what the caller holds on that customer.
 */
export async function reviewTokenRequest(
  db: Db,
  caller: Caller,
  request: TokenRequest,
  context: {
    directory: TenantDirectory | null
    panelScopes: ReadonlySet<string>
    policy: TokenLifetimePolicy
  },
): Promise<ProblemItem[]> {
  const { customerId } = request
  const customerVisible =
    customerId !== null &&
    context.directory !== null &&
    (await customerInView(db, caller.view, customerId)) &&
    (await context.directory.findCustomer(customerId)) !== null
  const creatorScopes =
    customerId !== null && customerVisible ? await scopesOnCustomer(db, caller, customerId) : caller.scopes
  return checkTokenRequest(request, creatorScopes, context.panelScopes, customerVisible, context.policy)
}
