// What a console module declares, and the one index the shell makes of all of them: the console's own pages and
// those every mounted plugin contributes (`console.pages`, built in by the bundler). The shell routes, lists in the
// navigation and guards what this index holds, and names no plugin.

import type { ReactNode } from 'react'

/** Who an entry is for: staff (the operator console), team members (the portal), or both. */
export type Audience = 'staff' | 'member' | 'both'

/** An entry of the navigation. */
export interface NavEntry {
  /** The heading it is listed under (`Hosting`, `Platform`); entries of several modules share a heading. */
  readonly group: string
  readonly label: string
  /** The page it opens: an app path (`/sites`). */
  readonly to: string
  /** Shown when the caller holds this scope (null: everyone signed in). */
  readonly scope: string | null
  readonly audience: Audience
  /**
   * Where it is listed: groups by the smallest order of their entries, entries within a group by theirs. The
   * console's own use 0 (dashboard), 630 (staff and users), 800 (activity) and 900 (account); the standard areas
   * 100 to 699. Without one, it comes last in its group, and does not move the group.
   */
  readonly order?: number
}

/** A page shown as a tab of another page (a site's files, beside its overview). */
export interface PageTab {
  /** The pattern of the page whose tabs it joins (`/sites/:id`); that page's own tab names its own pattern. */
  readonly of: string
  readonly label: string
  /** Tabs by their order, lowest first. Default 500. */
  readonly order?: number
  /** Shown when the caller holds this scope (default: the page's own `scope`, else to everyone). */
  readonly scope?: string
  /** Shown only for some subjects (a WordPress tab for WordPress sites), given what the framing page read. */
  readonly shownFor?: (subject: Readonly<Record<string, unknown>>) => boolean
}

/** A page of the app: its path pattern and what it shows. */
export interface ConsoleRoute {
  /** `/sites/:id/files`; a literal segment is preferred to a parameter (`/sites/new` before `/sites/:id`). */
  readonly path: string
  /**
   * The scope without which the page can do nothing (a create form of a staff area): a caller without it is told
   * so instead of being shown a form the API will refuse.
   */
  readonly scope?: string
  /** Who the page is for; another caller is told it is not theirs. Default `both`. */
  readonly audience?: Audience
  readonly tab?: PageTab
  readonly render: (params: Readonly<Record<string, string>>) => ReactNode
}

/**
 * Something the dashboard flags at its top (failed sites, with a link to them): a module's notice, shown to callers
 * holding its scope; it renders nothing when there is nothing to flag.
 */
export interface DashboardNotice {
  /** Unique across modules: `failed-sites`. */
  readonly name: string
  /** Shown when the caller holds this scope (null: everyone signed in). */
  readonly scope: string | null
  readonly render: () => ReactNode
}

/** What a console module gives the shell: its pages, its navigation entries and its dashboard notices. */
export interface ConsolePagesModule {
  readonly routes: readonly ConsoleRoute[]
  readonly navigation?: readonly NavEntry[]
  readonly notices?: readonly DashboardNotice[]
}

/**
 * Declares a console module: the default export of a plugin's `console/index.tsx` (see docs/console.md).
 * @example export default defineConsolePages({ navigation: [{ group: 'Hosting', label: 'Zones', to: '/zones', scope: 'dns:read', audience: 'both' }], routes: [{ path: '/zones', render: () => <ZonesPage /> }] })
 */
export function defineConsolePages(module: ConsolePagesModule): ConsolePagesModule {
  return module
}

/** A heading of the navigation and its entries, in order. */
export interface NavGroup {
  readonly label: string
  readonly items: readonly NavEntry[]
}

/** Every page, navigation entry and dashboard notice of the app. */
export interface ConsolePages {
  readonly routes: readonly ConsoleRoute[]
  readonly navigation: readonly NavGroup[]
  readonly notices: readonly DashboardNotice[]
}

/** An order to sort by: entries without one after those with one (sorting is stable: then as declared). */
const compareOrders = (a: number | undefined, b: number | undefined) =>
  a === b ? 0 : a === undefined ? 1 : b === undefined ? -1 : a - b

/**
 * The navigation's groups, each placed by the smallest order of its entries (a group no entry orders comes last),
 * its entries by their order; entries without an order come last in their group, as declared.
 */
function groupsOf(entries: readonly NavEntry[]): NavGroup[] {
  const groups = new Map<string, { rank: number | undefined; items: NavEntry[] }>()
  for (const entry of entries) {
    const group = groups.get(entry.group) ?? { rank: undefined, items: [] }
    group.items.push(entry)
    if (entry.order !== undefined) group.rank = Math.min(group.rank ?? entry.order, entry.order)
    groups.set(entry.group, group)
  }
  return [...groups]
    .sort(([, a], [, b]) => compareOrders(a.rank, b.rank))
    .map(([label, group]) => ({ label, items: group.items.sort((a, b) => compareOrders(a.order, b.order)) }))
}

/** A pattern with its parameters' names made alike: `/sites/:id` and `/sites/:siteId` are one page. */
const shapeOf = (path: string) => path.replace(/:[^/]+/g, ':')

/** The index of `modules`; throws when two pages claim one path or two entries one link, naming them. */
export function indexPages(modules: readonly ConsolePagesModule[]): ConsolePages {
  const routes = modules.flatMap((module) => module.routes)
  const paths = new Map<string, string>()
  for (const route of routes) {
    const known = paths.get(shapeOf(route.path))
    if (known !== undefined) throw new Error(`Two console pages claim ${route.path} (and ${known})`)
    paths.set(shapeOf(route.path), route.path)
  }
  const entries = modules.flatMap((module) => module.navigation ?? [])
  const links = new Set<string>()
  for (const entry of entries) {
    if (links.has(entry.to)) throw new Error(`Two navigation entries open ${entry.to}`)
    links.add(entry.to)
  }
  const notices = modules.flatMap((module) => module.notices ?? [])
  const names = new Set<string>()
  for (const notice of notices) {
    if (names.has(notice.name)) throw new Error(`Two dashboard notices are named ${notice.name}`)
    names.add(notice.name)
  }
  return { routes, navigation: groupsOf(entries), notices }
}

/** How specific a pattern is at each segment (1 a literal, 0 a parameter): literals win where two match. */
const rankOf = (path: string) =>
  path
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? 0 : 1))

const moreSpecific = (a: readonly number[], b: readonly number[]) => {
  const index = a.findIndex((value, i) => value !== b[i])
  return index >= 0 && (a[index] ?? 0) > (b[index] ?? 0)
}

/** The parameters of `path` under `pattern`, or null when it does not match. */
export function matchPattern(pattern: string, path: string): Record<string, string> | null {
  const parts = path.split('/').filter(Boolean)
  const segments = pattern.split('/').filter(Boolean)
  if (segments.length !== parts.length) return null
  const params: Record<string, string> = {}
  for (const [index, segment] of segments.entries()) {
    const part = parts[index] ?? ''
    if (segment.startsWith(':')) params[segment.slice(1)] = decodeURIComponent(part)
    else if (segment !== part) return null
  }
  return params
}

/** The route matching `path` (the most specific, when several do), with its parameters. */
export function matchRoute(
  routes: readonly ConsoleRoute[],
  path: string,
): { route: ConsoleRoute; params: Record<string, string> } | null {
  let best: { route: ConsoleRoute; params: Record<string, string>; rank: number[] } | null = null
  for (const route of routes) {
    const params = matchPattern(route.path, path)
    if (!params) continue
    const rank = rankOf(route.path)
    if (!best || moreSpecific(rank, best.rank)) best = { route, params, rank }
  }
  return best && { route: best.route, params: best.params }
}

/** The app path of `pattern` with `params` filled in (`/sites/:id/files`, `{ id }` → `/sites/site_1/files`). */
export function pathOf(pattern: string, params: Readonly<Record<string, string>>): string {
  return pattern.replace(/:([^/]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''))
}
