// The app: signed out it is the brand's sign-in page; signed in, the frame and the page the address names, from
// the index of every module's pages, guarded as the page declares (its audience, its scope).

import { ErrorNotice, Loading } from './components/states.tsx'
import { matchRoute } from './console-pages.ts'
import { Layout } from './layout.tsx'
import { NotAllowed, NotForAudience, NotFound } from './pages/not-found.tsx'
import { SignIn } from './pages/sign-in.tsx'
import { usePages } from './pages-context.tsx'
import { useLocation } from './router.tsx'
import { SessionProvider, useBranding, useMe } from './session.tsx'

export function App() {
  const me = useMe()
  const branding = useBranding(me.data)
  const { routes } = usePages()
  const { path } = useLocation()
  if (me.isPending) return <Loading label="Opening the control panel…" />
  if (me.isError) return <ErrorNotice error={me.error} />
  if (!me.data) return <SignIn branding={branding} />
  const matched = matchRoute(routes, path)
  const audience = me.data.kind === 'member' ? 'member' : 'staff'
  const foreign =
    matched?.route.audience !== undefined && ![audience, 'both'].includes(matched.route.audience)
  return (
    <SessionProvider me={me.data}>
      <Layout branding={branding}>
        {/* A new page is a new component tree: no state carries over from the last one. */}
        <div key={path}>
          {!matched ? (
            <NotFound />
          ) : foreign ? (
            <NotForAudience staffPage={audience === 'member'} />
          ) : matched.route.scope && !me.data.scopes.includes(matched.route.scope) ? (
            <NotAllowed scope={matched.route.scope} />
          ) : (
            matched.route.render(matched.params)
          )}
        </div>
      </Layout>
    </SessionProvider>
  )
}
