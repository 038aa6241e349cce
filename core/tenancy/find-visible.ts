// One-call reads of one resource the caller may see: a missing row and one outside the view are the same 404.

import type { Kysely } from 'kysely'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'
import { selectVisible, type TenantView } from './tenant-view.ts'

/** `value`, or 404 `not_found` when it is null or undefined. */
export function orNotFound<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw new Problem(kernelProblems.not_found)
  return value
}

/**
 * The row of `table` with this `id` whose customer is inside `view`, or 404 `not_found`: a missing resource and
 * one the caller may not see answer alike.
 * @example const row = await findVisible(trx.withTables<CronTables>(), 'cron_jobs', view, params.id)
 */
export async function findVisible<DB, T extends keyof DB & string>(
  db: Kysely<DB>,
  table: T,
  view: TenantView,
  id: string,
  options: { readonly customerColumn?: string } = {},
): Promise<DB[T]> {
  const row = await selectVisible(db, table, view, options.customerColumn)
    .selectAll()
    // biome-ignore lint/suspicious/noExplicitAny: Kysely cannot type a column of a table chosen by the caller
    .where(`${table}.id` as any, '=', id)
    .executeTakeFirst()
  return orNotFound(row as DB[T] | undefined)
}
