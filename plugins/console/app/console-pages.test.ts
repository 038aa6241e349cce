// The index the shell makes of every module's pages: one page per path, one entry per link, the navigation in its
// order, and the most specific pattern chosen where several match.

import { describe, expect, test } from 'bun:test'
import { type ConsoleRoute, indexPages, matchRoute, type NavEntry, pathOf } from './console-pages.ts'

const page = (path: string): ConsoleRoute => ({ path, render: () => path })
const entry = (group: string, label: string, order?: number): NavEntry => ({
  group,
  label,
  to: `/${label.toLowerCase()}`,
  scope: null,
  audience: 'both',
  ...(order === undefined ? {} : { order }),
})

describe('indexing modules', () => {
  test('lists groups by their entries’ smallest order, and entries by theirs, whichever module declares them', () => {
    const pages = indexPages([
      { routes: [], navigation: [entry('Account', 'Tokens', 900), entry('Overview', 'Dashboard', 0)] },
      { routes: [], navigation: [entry('Hosting', 'Sites', 200), entry('Hosting', 'Zones')] },
      { routes: [], navigation: [entry('Hosting', 'Customers', 100), entry('Account', 'Support')] },
      { routes: [], navigation: [entry('Mail', 'Mailboxes'), entry('Mail', 'Aliases')] },
    ])
    // Unordered entries come last in their group, as declared, and never move it; an unordered group comes last.
    expect(pages.navigation.map((group) => [group.label, group.items.map((item) => item.label)])).toEqual([
      ['Overview', ['Dashboard']],
      ['Hosting', ['Customers', 'Sites', 'Zones']],
      ['Account', ['Tokens', 'Support']],
      ['Mail', ['Mailboxes', 'Aliases']],
    ])
  })

  test('refuses two pages at one path, however their parameters are named', () => {
    expect(() =>
      indexPages([{ routes: [page('/sites/:id')] }, { routes: [page('/sites/:siteId')] }]),
    ).toThrow('Two console pages claim /sites/:siteId (and /sites/:id)')
  })

  test('refuses two entries opening one page', () => {
    expect(() =>
      indexPages([
        { routes: [], navigation: [entry('Hosting', 'Sites')] },
        { routes: [], navigation: [entry('Other', 'Sites')] },
      ]),
    ).toThrow('Two navigation entries open /sites')
  })

  test('gathers every module’s dashboard notices, in order, and refuses two of one name', () => {
    const notice = (name: string) => ({ name, scope: null, render: () => null })
    const pages = indexPages([
      { routes: [], notices: [notice('failed-sites')] },
      { routes: [] },
      { routes: [], notices: [notice('expiring-certificates')] },
    ])
    expect(pages.notices.map((each) => each.name)).toEqual(['failed-sites', 'expiring-certificates'])
    expect(() =>
      indexPages([
        { routes: [], notices: [notice('failed-sites')] },
        { routes: [], notices: [notice('failed-sites')] },
      ]),
    ).toThrow('Two dashboard notices are named failed-sites')
  })
})

describe('matching a path', () => {
  const routes = [page('/sites/:id'), page('/sites/new'), page('/sites/:id/files'), page('/')]

  test('prefers a literal segment to a parameter, in whatever order the modules came', () => {
    expect(matchRoute(routes, '/sites/new')?.route.path).toBe('/sites/new')
    expect(matchRoute(routes, '/sites/site_1')).toEqual({
      route: routes[0] as ConsoleRoute,
      params: { id: 'site_1' },
    })
  })

  test('decodes parameters, and finds nothing for a path no page has', () => {
    expect(matchRoute(routes, '/sites/a%20b/files')?.params).toEqual({ id: 'a b' })
    expect(matchRoute(routes, '/zones')).toBeNull()
  })

  test('and back: a pattern with its parameters is an app path', () => {
    expect(pathOf('/sites/:id/files', { id: 'a b' })).toBe('/sites/a%20b/files')
  })
})
