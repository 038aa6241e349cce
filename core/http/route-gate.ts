// The first stage of every request: its allowance counted (429 past it), its caller authenticated (401) and
// permitted (403), or, for a plain list read on PostgreSQL, guessed from a kept caller and confirmed alongside. A
// route with a credential of its own has it checked here too, so a principal with an allowance of its own is
// charged to it, never to the address it shares with others.

import { authenticate, guessCaller } from '../auth/authenticate.ts'
import { type Caller, wildcardScope } from '../auth/caller.ts'
import type { RouteCredential } from '../plugin/route.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'
import type { RateDecision, RateKey } from './rate-limiter.ts'
import type { Charges, RequestInfo, RouteUnderway } from './route-runtime.ts'

/** The allowance a caller's requests count against: its token's, or its session's. */
function credentialOf(caller: Caller): string {
  return caller.token ? `token:${caller.token.id}` : `session:${caller.session?.id}`
}

/** Who a request was let in as. */
export interface Authorised {
  /** The kernel's caller (a token or a session); null on public routes. */
  readonly caller: Caller | null
  /** What the route's own credential authenticated, checked once here; undefined on routes without one. */
  readonly principal: unknown
}

/** Who may send a request to one route. */
export interface RouteGate {
  /**
   * The caller, charged to its credential and permitted (null on public routes), and the principal of the route's
   * own credential. Throws 401, 403 or 429.
   */
  authorise(
    request: Request,
    params: Readonly<Record<string, string>>,
    info: RequestInfo,
    charges: Charges,
  ): Promise<Authorised>
  /**
   * The caller guessed for a list read (PostgreSQL, a kept caller), and what confirms it: the token read, and the
   * count against its allowance, both sent at once. The confirmation settles as `authorise` would answer: 401 (the
   * address charged), 429, 403, or `CallerChanged` when the request must be answered afresh. Null when the route's
   * requests may not be answered on a guess.
   */
  guessed(
    request: Request,
    info: RequestInfo,
    charges: Charges,
  ): { caller: Caller; confirmation: Promise<void> } | null
}

/** The gate of one route. */
export function routeGate({ route, runtime, plugin }: RouteUnderway): RouteGate {
  /** Keeps a decision's headers; throws its 429 past the allowance. */
  function settle(charges: Charges, key: RateKey, decision: RateDecision | null): void {
    if (!decision) return
    charges.headers = decision.headers
    if (decision.refusal) {
      runtime.rateLimited?.(key)
      throw decision.refusal
    }
  }

  /**
   * Counts the request against `key`'s allowance, keeping its headers; throws 429 past it. Answers a promise only
   * when the limiter does (the shared one on PostgreSQL): the in-memory limiter's path stays synchronous.
   */
  function charge(charges: Charges, key: RateKey): Promise<void> | undefined {
    if (route.rateLimited === false) return
    const decision = runtime.limiter.take(key)
    if (decision instanceof Promise) return decision.then((settled) => settle(charges, key, settled))
    settle(charges, key, decision)
  }

  /**
   * The principal of the route's own credential, charged to its rate key when it names one (in the plugin's
   * namespace, so no plugin's key is a token's or another plugin's), to the address otherwise. A credential that
   * fails is charged to the address: sending junk never escapes the address's allowance.
   */
  async function principalOf(
    credential: RouteCredential,
    request: Request,
    params: Readonly<Record<string, string>>,
    info: RequestInfo,
    charges: Charges,
  ): Promise<unknown> {
    let principal: unknown
    try {
      principal = await credential.authenticate(request, params)
    } catch (error) {
      await charge(charges, { address: info.address })
      throw error
    }
    const own = credential.rateKey?.(principal)
    const pending = charge(
      charges,
      own === undefined ? { address: info.address } : { credential: `route:${plugin}:${own}` },
    )
    if (pending) await pending
    return principal
  }

  /** Refuses a caller the route is not for (403). */
  function permit(caller: Caller): void {
    // Minting, revoking and password changes are for the whole account: a token narrowed by scope or customer
    // could otherwise mint itself a wider one.
    if (
      route.wildcardOnly &&
      caller.token &&
      (!caller.token.scopes.includes(wildcardScope) || caller.token.customerId)
    ) {
      throw new Problem(kernelProblems.wildcard_token_required)
    }
    if (route.staff && (caller.kind === 'member' || caller.token?.customerId))
      throw new Problem(kernelProblems.staff_only, {
        detail: caller.token?.customerId
          ? 'This operation is for platform or brand staff; a customer-limited token cannot use it.'
          : 'This operation is for platform or brand staff; a member of a customer’s team cannot use it.',
      })
    if (route.scope && !caller.scopes.has(route.scope)) {
      throw new Problem(kernelProblems.insufficient_scope, {
        detail: `This operation needs the scope "${route.scope}".`,
        extensions: { scope: route.scope },
        headers: {
          'www-authenticate': `Bearer realm="plinth", error="insufficient_scope", scope="${route.scope}"`,
        },
      })
    }
  }

  /** Whether a request may be answered on a guessed caller: a plain list read, which changes nothing. */
  const guessable =
    route.method === 'GET' &&
    route.list !== undefined &&
    !route.public &&
    !route.credential &&
    !route.strictRateLimit &&
    !route.idempotent &&
    !route.change

  return {
    /**
     * A credential that fails is charged to the address, so sending junk tokens never escapes the address's
     * allowance. Public routes are charged to the address (login to its stricter one) before anything else, but
     * for those with a credential of their own: that is checked first, and charged as `principalOf` says.
     */
    async authorise(request, params, info, charges) {
      const before = route.strictRateLimit
        ? charge(charges, { login: info.address })
        : route.public && !route.credential
          ? charge(charges, { address: info.address })
          : undefined
      if (before) await before
      if (route.credential) {
        const principal = await principalOf(route.credential, request, params, info, charges)
        return { caller: null, principal }
      }
      if (route.public) return { caller: null, principal: undefined }
      let caller: Caller
      try {
        const found = authenticate(request, runtime.auth)
        caller = found instanceof Promise ? await found : found
      } catch (error) {
        if (error instanceof Problem && error.status === 401) await charge(charges, { address: info.address })
        throw error
      }
      const credential = credentialOf(caller)
      // Counted already when the request was first answered on a guess of this very caller (see `guessed`).
      if (charges.credential !== credential) {
        const pending = charge(charges, { credential })
        if (pending) await pending
      }
      permit(caller)
      return { caller, principal: undefined }
    },

    guessed(request, info, charges) {
      const guess = guessable ? guessCaller(request, runtime.auth) : null
      if (!guess) return null
      const { caller } = guess
      const credential = credentialOf(caller)
      charges.credential = credential
      const counting = charge(charges, { credential }) ?? Promise.resolve()
      const confirmation = Promise.allSettled([guess.confirm(), counting]).then(async ([token, counted]) => {
        if (token.status === 'rejected') {
          const { reason } = token
          if (reason instanceof Problem && reason.status === 401)
            await charge(charges, { address: info.address })
          throw reason
        }
        if (counted.status === 'rejected') throw counted.reason
        permit(caller)
      })
      return { caller, confirmation }
    },
  }
}
