// Who is signed in (`GET /me`), the brand that themes the app, and signing in and out. The same session cookie and
// CSRF token any browser client of the API uses; nothing here decides what a user may do: the API's scopes do,
// and the app only hides what `/me` says the caller cannot do.

import { type QueryClient, type QueryKey, useQuery, useQueryClient } from '@tanstack/react-query'
import { createContext, type ReactNode, useContext, useEffect, useMemo } from 'react'
import { api, type Schemas, setCsrfToken, unwrap, whenSignedOut } from './api/client.ts'
import { ApiProblem } from './api/problem.ts'
import { apiKey, segmentsOfKey } from './api/query-keys.ts'
import { useLocation } from './router.tsx'
import { applyBranding, type Branding } from './theme.ts'

type Me = Schemas['Me']

/** The signed-in caller as the app uses it. */
export interface Session {
  readonly me: Me
  /** Staff (platform or brand) see the operator console; team members the customer portal. */
  readonly staff: boolean
  /** Whether the caller holds a scope (on some customer). */
  can(scope: string): boolean
  signOut(): Promise<void>
}

const SessionContext = createContext<Session | null>(null)

/** The signed-in session; only inside the signed-in part of the app. */
export function useSession(): Session {
  const session = useContext(SessionContext)
  if (!session) throw new Error('useSession outside a signed-in page')
  return session
}

const meKey = apiKey('/api/v1/me')

/** Reads `/me`; a 401 means signed out (null), anything else is an error to show. */
export function useMe() {
  return useQuery({
    queryKey: meKey,
    queryFn: async () => {
      try {
        const me = await unwrap(api.GET('/api/v1/me'))
        setCsrfToken(me.session?.csrfToken ?? null)
        return me
      } catch (error) {
        if (error instanceof ApiProblem && error.status === 401) return null
        throw error
      }
    },
    staleTime: 60_000,
  })
}

/** The brand whose theme the app wears: the caller's own once signed in, else the host's or `?brand=`. */
export function useBranding(me: Me | null | undefined) {
  const { query } = useLocation()
  // Only something that can be a brand id is sent: anything else would be refused, and the page lose its brand.
  const brandParam = /^brd_[0-9A-Za-z]{1,60}$/.test(query.get('brand') ?? '') ? query.get('brand') : null
  // Signed in, a user wears their own brand wherever they are; platform staff (no brand) and visitors the host's.
  const brandId = me ? (me.brandId ?? me.memberships[0]?.brandId ?? null) : brandParam
  const host = me && brandId ? null : window.location.hostname
  const branding = useQuery({
    queryKey: apiKey('/api/v1/branding', { query: { host, brandId } }),
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/branding', {
          params: { query: { ...(host ? { host } : {}), ...(brandId ? { brandId } : {}) } },
        }),
      ) as Promise<Branding>,
    staleTime: 300_000,
  })
  useEffect(() => {
    if (branding.data) applyBranding(branding.data)
  }, [branding.data])
  return branding.data ?? null
}

/** Provides the session of `me` to the signed-in pages. */
export function SessionProvider({ me, children }: { me: Me; children: ReactNode }) {
  const queries = useQueryClient()
  useEffect(() => {
    // The session ended elsewhere (expired, signed out in another tab): forget everything read with it.
    whenSignedOut(() => forgetSession(queries))
  }, [queries])
  const session = useMemo<Session>(() => {
    const scopes = new Set(me.scopes)
    return {
      me,
      staff: me.kind !== 'member',
      can: (scope) => scopes.has(scope),
      async signOut() {
        await api.POST('/api/v1/auth/logout')
        forgetSession(queries)
      },
    }
  }, [me, queries])
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>
}

/**
 * Forgets a session: its CSRF token and every answer read with it, so the next user of this tab sees none of them.
 * `me` goes to null first (the app then shows the sign-in page), then everything else is removed.
 */
function forgetSession(queries: QueryClient): void {
  setCsrfToken(null)
  queries.setQueryData(meKey, null)
  forgetAnswers(queries)
}

/** Whether an answer outlives a session: who is signed in (`GET /me`) and the public branding. */
const outlivesSession = (key: QueryKey) => {
  const segments = segmentsOfKey(key)
  return segments?.length === 1 && (segments[0] === 'me' || segments[0] === 'branding')
}

/** Removes every answer read with a session: all but who is signed in (`me`) and the public branding. */
function forgetAnswers(queries: QueryClient): void {
  queries.removeQueries({ predicate: (query) => !outlivesSession(query.queryKey) })
}

/** Signs in; on success `/me` is read again and the app shows the signed-in pages. */
export function useSignIn() {
  const queries = useQueryClient()
  return async (email: string, password: string) => {
    const login = await unwrap(api.POST('/api/v1/auth/login', { body: { email, password } }))
    // Nothing read by an earlier session of this tab may show to this user.
    forgetAnswers(queries)
    setCsrfToken(login.csrfToken)
    await queries.invalidateQueries({ queryKey: meKey })
  }
}
