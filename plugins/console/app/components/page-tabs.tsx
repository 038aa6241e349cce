// The tabs of a page that other pages join (`tab: { of: '/sites/:id' }`): whichever module declares them, each
// shown to those who hold its scope and, when it says so, only for some subjects (a WordPress site).

import { pathOf } from '../console-pages.ts'
import { usePages } from '../pages-context.tsx'
import { Link, useLocation } from '../router.tsx'
import { useSession } from '../session.tsx'

/**
 * The tabs of the page `of` for `params` (its pattern's parameters) and `subject` (what that page read, for the
 * tabs' `shownFor`); the page showing is marked `aria-current="page"`.
 * @example <PageTabs of="/sites/:id" params={{ id: site.id }} subject={site} label="Site pages" />
 */
export function PageTabs({
  of,
  params,
  subject,
  label,
}: {
  of: string
  params: Readonly<Record<string, string>>
  subject: object
  label: string
}) {
  const { routes } = usePages()
  const session = useSession()
  const { path } = useLocation()
  const tabs = routes
    .flatMap((route) => (route.tab?.of === of ? [{ route, tab: route.tab }] : []))
    .filter(({ route, tab }) => {
      const scope = tab.scope ?? route.scope
      return (
        (scope === undefined || session.can(scope)) &&
        (tab.shownFor?.(subject as Readonly<Record<string, unknown>>) ?? true)
      )
    })
    .sort((a, b) => (a.tab.order ?? 500) - (b.tab.order ?? 500))
  const links = tabs.map(({ route, tab }) => ({
    key: route.path,
    label: tab.label,
    to: pathOf(route.path, params),
  }))
  // The tab of the page showing, or of the page it is under (a file's editor is under the files tab).
  const current = links
    .filter((link) => path === link.to || path.startsWith(`${link.to}/`))
    .sort((a, b) => b.to.length - a.to.length)[0]
  return (
    <nav className="tabs" aria-label={label}>
      {links.map((link) => (
        <Link key={link.key} to={link.to} aria-current={link === current ? 'page' : undefined}>
          {link.label}
        </Link>
      ))}
    </nav>
  )
}
