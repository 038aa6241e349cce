// How the plugin reaches a server: its engine (a node's own server through its node), and the administrator's
// credentials opened from their seal.

import { fieldProblem, type PluginContext, Problem, type SecretBox } from '../../core/index.ts'
import { nodeDirectory } from '../nodes/contract.ts'
import { type DatabaseEngine, EngineError, type EngineName, type ServerAccess } from './engines/engine.ts'
import type { DatabaseServersTable } from './migrations.ts'
import { nodeDatabaseEngine } from './node-servers.ts'
import { databasesProblems } from './problems.ts'

/** The engines a panel provisions with, by name (tests may give their own). */
export type Engines = (name: EngineName) => DatabaseEngine

/** The engine that reaches a server: a node's own through its node, any other directly. */
export type ServerEngines = (server: DatabaseServersTable) => DatabaseEngine

/** The engine of each server, on `engines` for the servers the panel reaches itself. */
export function serverEngines(context: PluginContext, engines: Engines): ServerEngines {
  const nodes = context.use(nodeDirectory)
  return (server) =>
    server.node_id === null
      ? engines(server.engine as EngineName)
      : nodeDatabaseEngine(nodes, server.node_id, server.engine as EngineName)
}

/** The administrator's access to a server row. */
export function accessOf(secrets: SecretBox, row: DatabaseServersTable): ServerAccess {
  return {
    host: row.host,
    port: row.port,
    username: row.username,
    password: secrets.open(row.password_sealed),
  }
}

/**
 * The problem a request answers for a failure of the server: its connection test's own code (422), or 502
 * `server_failed` for anything else. Never the server's message, which may name the administrator.
 */
export function serverProblem(error: unknown, location?: string): Problem {
  if (error instanceof EngineError && error.code !== 'server_error') {
    const problem = databasesProblems[error.code]
    return location ? fieldProblem(problem, location) : new Problem(problem)
  }
  return new Problem(databasesProblems.server_failed)
}
