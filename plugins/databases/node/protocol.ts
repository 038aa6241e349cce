// What the panel asks a node's `database` service (JSON both ways): an engine operation run on the node's own
// database server, by the node, with credentials that never leave it. Read by both sides.

import type { DatabaseEngine } from '../engines/engine.ts'

/** The node service's name. */
export const databaseServiceName = 'database'

/** The engine operations the panel may ask a node to run (everything but `close`, which is each side's own). */
export const nodeEngineMethods = [
  'check',
  'createDatabase',
  'dropDatabase',
  'databaseSizes',
  'createUser',
  'setPassword',
  'setHosts',
  'dropUser',
  'setGrants',
  'readGrants',
  'setLocked',
  'namesStartingWith',
  'handOverDefinitions',
] as const satisfies readonly (keyof DatabaseEngine)[]
export type NodeEngineMethod = (typeof nodeEngineMethods)[number]

/**
 * One engine operation: its name and its arguments after the server's access (which the node holds itself). Names
 * and passwords in them are checked again by the engine on the node, as they are by the panel.
 */
export interface DatabaseNodeRequest {
  readonly op: 'engine'
  readonly method: NodeEngineMethod
  readonly args: readonly unknown[]
}

/** What the node says of its database server with its capabilities (`capabilities.services.database`). */
export interface NodeDatabaseInfo {
  readonly engine: 'mariadb'
  /** Whether it runs now; when not, `starting` says it is on its way, else `reason` says why not. */
  readonly running: boolean
  readonly starting?: boolean
  readonly version?: string
  /** Where the node's sites reach it: loopback, never another machine. */
  readonly host?: string
  readonly port?: number
  readonly reason?: string
}
