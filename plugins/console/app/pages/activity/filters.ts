// Filters of the activity lists: kept in the query string, and checked by the API before they go there, so a
// refused filter (422 at `query.actor`) shows at its field like a refused body field.

import { ApiProblem } from '../../api/problem.ts'

/** `problem` with its `query.<name>` errors placed as the form's `body.<name>` fields; anything else as is. */
export function asFieldProblem(problem: unknown): unknown {
  if (!(problem instanceof ApiProblem)) return problem
  return new ApiProblem(
    problem.status,
    problem.code,
    problem.title,
    problem.detail,
    problem.errors.map((item) => ({ ...item, location: item.location.replace(/^query\./, 'body.') })),
    problem.requestId,
  )
}

/** The query-string values of `names`, leaving out empty ones. */
export function filtersOf<K extends string>(
  query: URLSearchParams,
  names: readonly K[],
): Partial<Record<K, string>> {
  const filters: Partial<Record<K, string>> = {}
  for (const name of names) {
    const value = query.get(name)
    if (value) filters[name] = value
  }
  return filters
}
