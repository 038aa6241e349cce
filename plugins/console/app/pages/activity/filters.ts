// Filters of the activity lists: kept in the query string, and checked by the API before they go there, so a
// refused filter (422 at `query.actor`) shows at its field like a refused body field.

import { ApiProblem } from '../../api/problem.ts'
import { type ApiForm, textOf, useApiForm } from '../../components/form.tsx'
import { setQuery } from '../../router.tsx'

/** The non-empty text fields of `data` among `names`. */
export function textsOf<K extends string>(data: FormData, names: readonly K[]): Partial<Record<K, string>> {
  const values: Partial<Record<K, string>> = {}
  for (const name of names) {
    const value = textOf(data, name)
    if (value) values[name] = value
  }
  return values
}

/**
 * A filter form: on submit the values `read` takes from it are checked by the API (`check` reads one entry with
 * them), and only then become the query string's `names` (those without a value removed).
 */
export function useFilterForm<K extends string>(
  names: readonly K[],
  read: (data: FormData) => Partial<Record<K, string>>,
  check: (values: Partial<Record<K, string>>) => Promise<unknown>,
): ApiForm<void> {
  return useApiForm(async (data) => {
    const values = read(data)
    try {
      await check(values)
    } catch (problem) {
      throw asFieldProblem(problem)
    }
    setQuery(Object.fromEntries(names.map((name) => [name, values[name] ?? null])))
  })
}

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
