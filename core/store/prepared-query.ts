// Queries on the hot path, built and compiled once per dialect (and per shape), then run with fresh values: Kysely
// otherwise rebuilds and recompiles every query on every request, which costs more than SQLite takes to answer it.

import type { Compilable, CompiledQuery, DialectAdapter } from 'kysely'
import { runsNow } from './bun-sqlite-dialect.ts'
import type { Db } from './store.ts'

/** Values standing for the named parameters while a query is built once. */
export type Placeholders<Params> = { readonly [K in keyof Params]: Params[K] }

/** One compiled form: its SQL, and for each parameter slot either a named parameter or a fixed value. */
interface Compiled {
  readonly query: CompiledQuery
  readonly slots: readonly ({ readonly name: string } | { readonly value: unknown })[]
}

const marker = '\u0000plinth-parameter:'

/** The value standing for the parameter `name` while a query is built: a string the compiled parameters show. */
export function placeholder(name: string): string {
  return `${marker}${name}`
}

/** Placeholders for every parameter of `Params`. */
function placeholdersFor<Params>(): Placeholders<Params> {
  return new Proxy({} as Placeholders<Params>, { get: (_target, name) => placeholder(String(name)) })
}

/** Compiles `built`, finding which parameter slots hold which placeholders. */
function compileWithSlots(built: Compilable<unknown>): Compiled {
  const query = built.compile()
  const slots = query.parameters.map((value) =>
    typeof value === 'string' && value.startsWith(marker) ? { name: value.slice(marker.length) } : { value },
  )
  if (query.sql.includes(marker))
    throw new Error(`preparedQuery: a parameter was written into the SQL text: ${query.sql}`)
  return { query, slots }
}

/** The values of a compiled form's parameter slots, from `params`. */
function parametersOf(compiled: Compiled, params: Record<string, unknown>): unknown[] {
  return compiled.slots.map((slot) => {
    if ('value' in slot) return slot.value
    const value = params[slot.name]
    if (value === undefined) throw new Error(`preparedQuery: no value for parameter "${slot.name}"`)
    return value
  })
}

/** Runs a compiled form now when the dialect can (bun:sqlite, its connection free or held by `db`); else null. */
function executeNow<Row>(db: Db, compiled: Compiled, parameters: readonly unknown[]): Row[] | null {
  const executor = db.getExecutor()
  if (!runsNow(executor.adapter) || executor.plugins.length > 0) return null
  return executor.adapter.runNow(compiled.query.sql, parameters, db.isTransaction) as Row[] | null
}

/** Runs a compiled form with `params`, without Kysely's executor when the dialect can (bun:sqlite). */
async function execute<Row>(db: Db, compiled: Compiled, params: Record<string, unknown>): Promise<Row[]> {
  const parameters = parametersOf(compiled, params)
  const rows = executeNow<Row>(db, compiled, parameters)
  if (rows !== null) return rows
  const result = await db.executeQuery<Row>({ ...compiled.query, parameters })
  return result.rows as Row[]
}

/**
 * How many shapes one query keeps compiled per dialect (a list: view kinds and sizes times filter combinations);
 * past it, further shapes are compiled per call. A bound on memory (about a kilobyte a shape), not a tuning knob.
 */
const maxShapes = 1000

/**
 * A query whose SQL depends only on a small set of shapes (which filters are set, how many ids are listed), not on
 * values: each shape is built and compiled once per dialect, keyed by the caller's `shape` string.
 */
export class QueryShapes {
  // Per dialect adapter: a transaction shares its database's adapter, another store (another dialect) has its own.
  readonly #compiled = new WeakMap<DialectAdapter, Map<string, Compiled>>()

  /**
   * Runs the shape `shape` of the query with `params`; `build` makes that shape from placeholders (called once per
   * shape and dialect, so it must build the same SQL for the same `shape` whatever the values).
   */
  async run<Params extends Record<string, unknown>, Row>(
    db: Db,
    shape: string,
    build: (placeholders: Placeholders<Params>) => Compilable<Row>,
    params: Params,
  ): Promise<Row[]> {
    return await execute<Row>(db, this.#compiledFor(db, shape, build), params)
  }

  /**
   * Runs the shape now and answers its rows, when the store can without waiting (bun:sqlite with its connection
   * free, or held by `db`'s transaction); null otherwise, and then `run` must be used. For the few reads on every
   * request, which would otherwise pay for the promises of a query that is already answered.
   */
  runNow<Params extends Record<string, unknown>, Row>(
    db: Db,
    shape: string,
    build: (placeholders: Placeholders<Params>) => Compilable<Row>,
    params: Params,
  ): Row[] | null {
    const compiled = this.#compiledFor(db, shape, build)
    return executeNow<Row>(db, compiled, parametersOf(compiled, params))
  }

  #compiledFor<Params, Row>(
    db: Db,
    shape: string,
    build: (placeholders: Placeholders<Params>) => Compilable<Row>,
  ): Compiled {
    const adapter = db.getExecutor().adapter
    let shapes = this.#compiled.get(adapter)
    if (!shapes) {
      shapes = new Map()
      this.#compiled.set(adapter, shapes)
    }
    let compiled = shapes.get(shape)
    if (!compiled) {
      compiled = compileWithSlots(build(placeholdersFor<Params>()))
      if (shapes.size < maxShapes) shapes.set(shape, compiled)
    }
    return compiled
  }
}

/** A prepared query: run it (awaiting the rows), or `now` for the rows at once where the store can (else null). */
export interface PreparedQuery<Params extends Record<string, unknown>, Row> {
  (db: Db, params: Params): Promise<Row[]>
  now(db: Db, params: Params): Row[] | null
}

/**
 * A query whose shape never changes, only its values: `build` runs once per dialect with placeholders standing for
 * the parameters, and every call runs the compiled SQL with the values given. Each parameter must reach the query
 * as a bound value (`where('id', '=', p.id)`), never as SQL text or in a decision (`if (p.id)`): a placeholder is
 * a string whatever the parameter's type. A build that writes one into the SQL text is refused at the first call.
 * On bun:sqlite the compiled statement runs without Kysely's executor when no transaction holds the connection.
 *
 * @example
 * const userById = preparedQuery<{ id: string }, UsersTable>((db, p) =>
 *   db.withTables<IdentityTables>().selectFrom('users').selectAll().where('id', '=', p.id))
 * const [user] = await userById(db, { id })
 */
export function preparedQuery<Params extends Record<string, unknown>, Row>(
  build: (db: Db, placeholders: Placeholders<Params>) => Compilable<Row>,
): PreparedQuery<Params, Row> {
  const shapes = new QueryShapes()
  const builder = (db: Db) => (placeholders: Placeholders<Params>) => build(db, placeholders)
  const run = (db: Db, params: Params) => shapes.run(db, '', builder(db), params)
  return Object.assign(run, {
    now: (db: Db, params: Params) => shapes.runNow<Params, Row>(db, '', builder(db), params),
  })
}

/**
 * An insert of one row into `table`, compiled once per dialect: every column listed is bound from the row given
 * (a column left `undefined` is refused at the call; give `null`; a column of the row not listed is refused too). For rows written on every change (audit
 * entries, jobs), where building and compiling the insert would cost more than SQLite takes to store it.
 * @example
 * const insertSite = preparedInsert<SitesTable>('sites', ['id', 'customer_id', 'name'])
 * await insertSite(trx, row)
 */
export function preparedInsert<Row extends object>(
  table: string,
  columns: readonly (keyof Row & string)[],
): (db: Db, row: Row) => Promise<void> {
  const insert = preparedQuery<Record<string, unknown>, never>((db, p) =>
    db
      .withTables<Record<string, Record<string, unknown>>>()
      .insertInto(table)
      .values(Object.fromEntries(columns.map((column) => [column, p[column]]))),
  )
  const listed = new Set<string>(columns)
  return async (db, row) => {
    // A column the row has and the list lacks would be dropped silently: refused instead.
    for (const key in row)
      if (!listed.has(key)) throw new Error(`preparedInsert into ${table}: the column "${key}" is not listed`)
    await insert(db, row as Record<string, unknown>)
  }
}
