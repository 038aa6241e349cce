// A small history router: the app's pages are a flat table of path patterns (`/sites/:id`), so a route is a
// pattern match and a link is an <a href> that the router takes over for plain clicks.

import { type AnchorHTMLAttributes, type MouseEvent, useSyncExternalStore } from 'react'

const publicPath = (
  document.querySelector('meta[name="plinth-public-path"]')?.getAttribute('content') ?? '/'
).replace(/\/$/, '')

const changed = 'plinth:navigate'

/** Back and forward: the page's heading takes the focus, as after a link. */
function focusHeading(): void {
  queueMicrotask(() => document.querySelector<HTMLElement>('main h1')?.focus())
}
window.addEventListener('popstate', () => setTimeout(focusHeading, 0))

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange)
  window.addEventListener(changed, onChange)
  return () => {
    window.removeEventListener('popstate', onChange)
    window.removeEventListener(changed, onChange)
  }
}

const snapshot = () => window.location.pathname + window.location.search

/** The app's current location: path (without the public path) and query. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const current = useSyncExternalStore(subscribe, snapshot)
  const url = new URL(current, window.location.origin)
  const path = url.pathname.startsWith(publicPath)
    ? url.pathname.slice(publicPath.length) || '/'
    : url.pathname
  return { path, query: url.searchParams }
}

/** The browser URL of an app path. */
export function hrefOf(to: string): string {
  return `${publicPath}${to}`
}

/** Goes to `to` (an app path with an optional query); `replace` keeps the history entry count. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, '', hrefOf(to))
  else window.history.pushState(null, '', hrefOf(to))
  window.dispatchEvent(new Event(changed))
  // A new page starts at its top, and its heading takes the focus so screen readers announce it.
  window.scrollTo(0, 0)
  focusHeading()
}

/** Changes query parameters of the current page in place (filters, cursors) without a new history entry. */
export function setQuery(values: Record<string, string | null>): void {
  const url = new URL(window.location.href)
  for (const [key, value] of Object.entries(values)) {
    if (value === null || value === '') url.searchParams.delete(key)
    else url.searchParams.set(key, value)
  }
  window.history.replaceState(null, '', url.pathname + url.search)
  window.dispatchEvent(new Event(changed))
}

/** A link inside the app. */
export function Link({ to, ...rest }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    rest.onClick?.(event)
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey)
      return
    event.preventDefault()
    navigate(to)
  }
  return <a {...rest} href={hrefOf(to)} onClick={onClick} />
}
