// The signed-in frame: the brand's header, the navigation of the areas the caller may use (every module's entries
// for the caller's audience and scopes), and the page.

import type { ReactNode } from 'react'
import { usePages } from './pages-context.tsx'
import { Link, useLocation } from './router.tsx'
import { useSession } from './session.tsx'
import type { Branding } from './theme.ts'

export function Layout({ branding, children }: { branding: Branding | null; children: ReactNode }) {
  const session = useSession()
  const { navigation } = usePages()
  const { path } = useLocation()
  const audience = session.staff ? 'staff' : 'member'
  const groups = navigation
    .map((group) => ({
      ...group,
      items: group.items.filter(
        (item) =>
          (item.audience === 'both' || item.audience === audience) &&
          (item.scope === null || session.can(item.scope)),
      ),
    }))
    .filter((group) => group.items.length > 0)
  const current = (to: string) => (to === '/' ? path === '/' : path === to || path.startsWith(`${to}/`))
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          {branding?.theme.logo ? <img src={branding.theme.logo} alt="" className="brand-logo" /> : null}
          <span>{branding?.name ?? 'Control panel'}</span>
        </Link>
        <span className="muted topbar-kind">{session.staff ? 'Operator console' : 'Customer portal'}</span>
        <div className="topbar-user">
          <span>{session.me.user.email}</span>
          <button type="button" className="button secondary" onClick={() => void session.signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <div className="frame">
        <nav className="sidebar" aria-label="Areas">
          {groups.map((group) => (
            <div key={group.label} className="nav-group">
              <p className="nav-heading">{group.label}</p>
              <ul>
                {group.items.map((item) => (
                  <li key={item.to}>
                    <Link to={item.to} aria-current={current(item.to) ? 'page' : undefined}>
                      {item.label}
                    </Link>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </nav>
        <main id="main" className="content">
          {children}
        </main>
      </div>
    </div>
  )
}
