// The standalone panel for the databases crash test: the standard host whose database engines stop for good at a
// chosen point (DATABASE_HOLD), right after the server did the work and before the panel recorded it, so the test
// can SIGKILL the process exactly there.

import { writeSync } from 'node:fs'
import type { DatabaseEngine, EngineName } from '../../plugins/databases/engines/engine.ts'
import { engineFor } from '../../plugins/databases/engines/engines.ts'
import { databasesPlugin } from '../../plugins/databases/index.ts'
import { runStandardServer } from '../bun/run-server.ts'
import { standardPlugins } from '../standard-plugins.ts'

/** Where the engines stop: after the database was created on the server, or after the login was. */
export const databaseHoldPoints = ['after-create-database', 'after-create-user'] as const
type HoldPoint = (typeof databaseHoldPoints)[number]

const hold = (process.env.DATABASE_HOLD || undefined) as HoldPoint | undefined
if (hold !== undefined && !databaseHoldPoints.includes(hold)) {
  console.error(`DATABASE_HOLD must be one of ${databaseHoldPoints.join(', ')}, not "${hold}"`)
  process.exit(2)
}

/** `engine` with the hold: the real work is done, then the call never returns. */
function held(engine: DatabaseEngine): DatabaseEngine {
  const stop = async (point: HoldPoint) => {
    if (hold !== point) return
    // Unbuffered: the test reads it and kills the process at once.
    writeSync(1, `database-hold: ${point}\n`)
    await new Promise(() => {})
  }
  return {
    ...engine,
    check: (...args) => engine.check(...args),
    createDatabase: async (...args) => {
      await engine.createDatabase(...args)
      await stop('after-create-database')
    },
    createUser: async (...args) => {
      await engine.createUser(...args)
      await stop('after-create-user')
    },
  }
}

process.env.PORT ||= '0'
await runStandardServer((settings) => [
  ...standardPlugins(settings).filter((plugin) => plugin.name !== 'databases'),
  databasesPlugin({ engines: (name: EngineName) => held(engineFor(name)) }),
])
