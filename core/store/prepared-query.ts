// Queries on the hot path, built and compiled once per dialect, then run with fresh values: Kysely otherwise
// rebuilds and recompiles every query on every request, which costs more than SQLite takes to answer it.

import type { Compilable, CompiledQuery, DialectAdapter } from 'kysely'
import type { Db } from './store.ts'

/** A value standing for a named parameter while the query is built once. */
type Placeholders<Params> = { readonly [K in keyof Params]: Params[K] }

/** One compiled form: its SQL, and for each parameter slot either a named parameter or a fixed value. */
interface Compiled {
  readonly query: CompiledQuery
  readonly slots: readonly ({ readonly name: string } | { readonly value: unknown })[]
}

const marker = '\u0000plinth-parameter:'

/**
 * A query whose shape never changes, only its values: `build` runs once per dialect with placeholders standing for
 * the parameters, and every call runs the compiled SQL with the values given. Each parameter must reach the query
 * as a bound value (`where('id', '=', p.id)`), not as SQL text, and must be a string; a build that does otherwise
 * is refused at the first call.
 *
 * @example
 * const userById = preparedQuery<{ id: string }, UsersTable>((db, p) =>
 *   db.withTables<KernelTables>().selectFrom('users').selectAll().where('id', '=', p.id))
 * const [user] = await userById(db, { id })
 */
export function preparedQuery<Params extends Record<string, string>, Row>(
  build: (db: Db, placeholders: Placeholders<Params>) => Compilable<Row>,
): (db: Db, params: Params) => Promise<Row[]> {
  // Per dialect adapter: a transaction shares its database's adapter, another store (another dialect) has its own.
  const compiledBy = new WeakMap<DialectAdapter, Compiled>()

  function compile(db: Db): Compiled {
    const placeholders = new Proxy({} as Placeholders<Params>, {
      get: (_target, name) => `${marker}${String(name)}`,
    })
    const query = build(db, placeholders).compile()
    const slots = query.parameters.map((value) =>
      typeof value === 'string' && value.startsWith(marker)
        ? { name: value.slice(marker.length) }
        : { value },
    )
    if (query.sql.includes(marker))
      throw new Error(`preparedQuery: a parameter was written into the SQL text: ${query.sql}`)
    return { query, slots }
  }

  return async (db, params) => {
    const adapter = db.getExecutor().adapter
    let compiled = compiledBy.get(adapter)
    if (!compiled) {
      compiled = compile(db)
      compiledBy.set(adapter, compiled)
    }
    const parameters = compiled.slots.map((slot) => {
      if ('value' in slot) return slot.value
      const value = params[slot.name]
      if (value === undefined) throw new Error(`preparedQuery: no value for parameter "${slot.name}"`)
      return value
    })
    const result = await db.executeQuery<Row>({ ...compiled.query, parameters })
    return result.rows as Row[]
  }
}
