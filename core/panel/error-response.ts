// The router's misses as problem+json: 405 with `Allow` when the path exists under other methods, else 404.

import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'

/** A method and path pattern the panel answers, for telling 404 from 405. */
export interface KnownRoute {
  readonly method: string
  readonly pattern: RegExp
}

/** A regular expression matching a router path (`/sites/:id`). */
export function routePattern(path: string): RegExp {
  const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+')
  return new RegExp(`^${escaped}/?$`)
}

/** 405 with `Allow` when the path exists under other methods, else 404. */
export function notFoundProblem(request: Request, routes: readonly KnownRoute[]): Problem {
  const path = new URL(request.url).pathname
  const allowed = [
    ...new Set(routes.filter((route) => route.pattern.test(path)).map((route) => route.method)),
  ]
  if (allowed.length > 0) {
    return new Problem(kernelProblems.method_not_allowed, {
      detail: `${request.method} is not allowed here; use ${allowed.join(', ')}.`,
      headers: { allow: allowed.join(', ') },
    })
  }
  return new Problem(kernelProblems.route_not_found)
}
