// Reviews a token request for a caller: the one place the API and the CLI decide what a new token may be.

import { type Caller, customerInView, scopesOnCustomer, wildcardScope } from '../auth/caller.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import type { ProblemItem } from '../problem/problem.ts'
import type { Db } from '../store/store.ts'
import type { TenantDirectory } from '../tenancy/tenant-view.ts'
import type { TokenLifetimePolicy, TokenRequest } from './api-tokens.ts'
import { tokenRequestProblems } from './token-request-problems.ts'

const dayMs = 86_400_000

/**
 * The refusals of a token request, as 422 items (empty when it may be issued). `customerVisible` says whether
 * the named customer exists within the creator's view; the caller asks the tenant directory.
 */
export function checkTokenRequest(
  request: TokenRequest,
  creatorScopes: ReadonlySet<string>,
  panelScopes: ReadonlySet<string>,
  customerVisible: boolean,
  policy: TokenLifetimePolicy,
  now: number = Date.now(),
): ProblemItem[] {
  const items: ProblemItem[] = []
  request.scopes.forEach((scope, index) => {
    const location = `body.scopes.${index}`
    if (scope === wildcardScope) return
    if (!panelScopes.has(scope)) {
      items.push({
        location,
        code: tokenRequestProblems.unknown_scope.code,
        message: `"${scope}" is not a scope of this installation`,
      })
    } else if (!creatorScopes.has(scope)) {
      items.push({
        location,
        code: tokenRequestProblems.scope_not_held.code,
        message: `you do not hold "${scope}", so no token of yours can`,
      })
    }
  })
  if (request.customerId !== null && !customerVisible) {
    items.push({
      location: 'body.customerId',
      code: kernelProblems.unknown_customer.code,
      message: 'no such customer',
    })
  }
  if (request.expiresAt !== null) {
    const expires = Date.parse(request.expiresAt)
    if (Number.isNaN(expires)) {
      items.push({ location: 'body.expiresAt', code: 'invalid_format', message: 'must be an ISO 8601 time' })
    } else if (expires <= now) {
      items.push({
        location: 'body.expiresAt',
        code: tokenRequestProblems.expiry_in_past.code,
        message: 'must be in the future',
      })
    } else if (expires > now + policy.maxDays * dayMs) {
      items.push({
        location: 'body.expiresAt',
        code: tokenRequestProblems.lifetime_too_long.code,
        message: `must be at most ${policy.maxDays} days from now`,
      })
    }
  }
  return items
}

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
