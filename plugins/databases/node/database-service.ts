// The node's `database` service: the node's own MariaDB started with the node, described with its capabilities (so
// the panel registers it as the node's database server), and the engine operations the panel asks run on it by the
// node, as its administrator, whose credentials never leave the node.

import { NodeRefusal, type NodeService } from '../../nodes/node/contract.ts'
import { type DatabaseEngine, EngineError } from '../engines/engine.ts'
import { mariadbEngine } from '../engines/mariadb.ts'
import { type MariadbPrograms, type NodeMariadb, nodeMariadb } from './node-mariadb.ts'
import {
  type DatabaseNodeRequest,
  databaseServiceName,
  type NodeDatabaseInfo,
  nodeEngineMethods,
} from './protocol.ts'

/** Options of {@link databaseNodeService}. */
export interface DatabaseServiceOptions {
  /** The port on 127.0.0.1 the node's MariaDB listens on. */
  readonly port: number
}

/** The `database` service of a node that has MariaDB's server (`programs`). */
export function databaseNodeService(programs: MariadbPrograms, options: DatabaseServiceOptions): NodeService {
  let server: NodeMariadb | null = null
  // The node starts it with itself: until then, and while it is made on a first start, it is on its way.
  let info: NodeDatabaseInfo = { engine: 'mariadb', running: false, starting: true }
  let engine: DatabaseEngine | null = null

  /** The engine's operation `request` names, on the node's own server. */
  async function runEngine(request: DatabaseNodeRequest): Promise<unknown> {
    if (!server || !info.running)
      throw new NodeRefusal(
        'server_unreachable',
        `The node's database server is not running (${info.reason})`,
      )
    if (!nodeEngineMethods.includes(request.method) || !Array.isArray(request.args))
      throw new NodeRefusal('invalid_database_request', 'No such database operation')
    engine ??= mariadbEngine()
    const access = await server.access()
    const operation = engine[request.method] as (...args: unknown[]) => Promise<unknown>
    try {
      const answer = await operation.call(engine, access, ...request.args)
      // A map (sizes by name) travels as its entries.
      return answer instanceof Map ? [...answer] : (answer ?? null)
    } catch (error) {
      // The engine's own refusals keep their codes (the panel makes them EngineErrors again); the rest is a fault.
      if (error instanceof EngineError) throw new NodeRefusal(error.code, error.message)
      throw error
    }
  }

  return {
    name: databaseServiceName,
    async handle() {
      throw new NodeRefusal(
        'invalid_database_request',
        'The database service answers calls about the node only',
      )
    },
    async handleNode(request) {
      const asked = request as DatabaseNodeRequest | null
      if (asked?.op !== 'engine')
        throw new NodeRefusal('invalid_database_request', 'No such database operation')
      return runEngine(asked)
    },
    describe: async () => ({ ...info }),
    async start(host) {
      server = nodeMariadb(programs, { dir: host.dataDir, port: options.port })
      try {
        const version = await server.start()
        info = { engine: 'mariadb', running: true, version, host: '127.0.0.1', port: options.port }
        host.log(
          'info',
          { port: options.port, version },
          `the node's MariaDB serves its sites on 127.0.0.1:${options.port}`,
        )
      } catch (error) {
        info = { engine: 'mariadb', running: false, reason: (error as Error).message.slice(0, 300) }
        throw error
      }
      // The server keeps running when the node's process stops: its sites need it across restarts.
      return async () => {
        await engine?.close()
      }
    },
  }
}
