// The engine adapters by name: one of each, made when first asked for, so that every caller shares its connections.

import type { DatabaseEngine, EngineName } from './engine.ts'
import { mariadbEngine } from './mariadb.ts'
import { postgresqlEngine } from './postgresql.ts'

const factories: Record<EngineName, () => DatabaseEngine> = {
  mariadb: mariadbEngine,
  postgresql: postgresqlEngine,
}

const made = new Map<EngineName, DatabaseEngine>()

/** The adapter of engine `name`. */
export function engineFor(name: EngineName): DatabaseEngine {
  let engine = made.get(name)
  if (!engine) {
    const factory = factories[name]
    if (!factory) throw new Error(`Unknown database engine ${JSON.stringify(name)}`)
    engine = factory()
    made.set(name, engine)
  }
  return engine
}

/** Closes the connections of every adapter made so far; the next `engineFor` makes a new one. */
export async function closeEngines(): Promise<void> {
  const engines = [...made.values()]
  made.clear()
  await Promise.all(engines.map((engine) => engine.close()))
}
