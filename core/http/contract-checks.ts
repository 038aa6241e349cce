// What test panels check of every request, so a route cannot drift from what it declares: a successful change
// wrote an audit entry, and every refusal is one the route lists (and so the OpenAPI document shows).

import { AsyncLocalStorage } from 'node:async_hooks'
import type { AuditTables } from '../audit/audit-tables.ts'
import { fieldCodes } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'
import type { Store } from '../store/store.ts'

/** Statements that change rows (transaction control and reads do not). */
const writing = /^\s*(insert|update|delete|replace)\b/i

/** The checks of one panel. */
export interface ContractChecks {
  /** Runs a handler, telling whether it wrote to the store. */
  tracking<T>(work: () => Promise<T>): Promise<{ readonly result: T; readonly wrote: boolean }>
  /** Whether an audit entry carries this request id. */
  audited(requestId: string): Promise<boolean>
  /** The error to answer instead of `error` when `error` is a refusal the route does not list; else `error`. */
  undeclared(error: unknown, declared: ReadonlySet<string>, route: string): unknown
}

/** Checks for the panel on `store` (test panels only: tracking writes costs a lookup per statement). */
export function createContractChecks(store: Store): ContractChecks {
  const requests = new AsyncLocalStorage<{ wrote: boolean }>()
  store.observeStatements((sql) => {
    const current = requests.getStore()
    if (current && writing.test(sql)) current.wrote = true
  })
  return {
    async tracking(work) {
      const state = { wrote: false }
      const result = await requests.run(state, work)
      return { result, wrote: state.wrote }
    },
    async audited(requestId) {
      const row = await store.db
        .withTables<AuditTables>()
        .selectFrom('audit_entries')
        .select('id')
        .where('request_id', '=', requestId)
        .executeTakeFirst()
      return row !== undefined
    },
    undeclared(error, declared, route) {
      if (!(error instanceof Problem)) return error
      const codes = [error.code, ...(error.errors ?? []).map((item) => item.code)]
      const stray = codes.filter((code) => !declared.has(code) && !(code in fieldCodes))
      if (stray.length === 0) return error
      return new Error(`${route} answered with ${stray.join(', ')}, which it does not list in its problems`)
    },
  }
}
