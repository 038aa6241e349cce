// Web routes: what a plugin serves to browsers beside the API (a web app's page and assets). They are plain GETs
// outside the API's base path and its document: no credentials, no rate limit, not described, since what they
// serve is public (the app then speaks to the API like any other client).

/** One path a plugin serves to browsers. */
export interface WebRoute {
  /**
   * An exact path (`/`), or a prefix ending in `/*` (`/assets/*`; `/*` is every path the panel does not answer
   * itself). Paths under the API's base path and the document's are never offered to web routes.
   */
  readonly path: string
  /**
   * The answer, or null to decline (a `/*` route declining a script's `Accept: application/json`): the next web
   * route is asked, and finally the kernel answers (its index at `/`, else 404 problem+json).
   */
  answer(request: Request): Response | null | Promise<Response | null>
}

/** Web routes in the order they are asked: exact paths first, then prefixes from the longest. */
export function webRouteMatcher(routes: readonly WebRoute[]) {
  const exact = routes.filter((route) => !route.path.endsWith('/*'))
  const prefixes = routes
    .filter((route) => route.path.endsWith('/*'))
    .map((route) => ({ route, prefix: route.path.slice(0, -1) }))
    .sort((a, b) => b.prefix.length - a.prefix.length)
  return {
    /** The routes that may answer `path`, in order. */
    candidates(path: string): WebRoute[] {
      return [
        ...exact.filter((route) => route.path === path),
        ...prefixes.filter(({ prefix }) => path.startsWith(prefix)).map(({ route }) => route),
      ]
    },
  }
}

/** Checks a web route's path at start-up: absolute, no parameters, a wildcard only as the whole last segment. */
export function webRoutePathProblem(path: string): string | null {
  if (!path.startsWith('/')) return 'must start with /'
  if (path.includes(':')) return 'takes no parameters'
  const star = path.indexOf('*')
  if (star >= 0 && (star !== path.length - 1 || !path.endsWith('/*'))) return "may end in '/*' only"
  return null
}
