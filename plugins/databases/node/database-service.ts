// The node's `database` service: the node's own MariaDB started with the node and kept running (started again when
// it dies, tried again when it could not start), described with its capabilities (so the panel registers it as the
// node's database server, and an operator sees why it does not run), and the engine operations the panel asks run on
// it by the node, as its administrator, whose credentials never leave the node.

import { NodeRefusal, type NodeService, type NodeServiceHost } from '../../nodes/node/contract.ts'
import { type DatabaseEngine, EngineError } from '../engines/engine.ts'
import { mariadbEngine } from '../engines/mariadb.ts'
import {
  failureReason,
  type MariadbPrograms,
  madePort,
  type NodeMariadb,
  nodeMariadb,
} from './node-mariadb.ts'
import {
  type DatabaseNodeRequest,
  databaseServiceName,
  type NodeDatabaseInfo,
  nodeEngineMethods,
} from './protocol.ts'

/** Options of {@link databaseNodeService}. */
export interface DatabaseServiceOptions {
  /** The port on 127.0.0.1 a server made now listens on (one made before keeps its own). */
  readonly port: number
  /** How often the server is looked at (started again if it died, tried again if it could not start). Default 10 s. */
  readonly watchEveryMs?: number
}

/** The `database` service of a node that has MariaDB's server (`programs`). */
export function databaseNodeService(programs: MariadbPrograms, options: DatabaseServiceOptions): NodeService {
  let server: NodeMariadb | null = null
  let log: NodeServiceHost['log'] = () => {}
  // The node starts it with itself: until then, and while it is made on a first start, it is on its way.
  let info: NodeDatabaseInfo = { engine: 'mariadb', running: false, starting: true }
  let engine: DatabaseEngine | null = null
  let starting: Promise<void> | null = null
  /** The port the server listens on since it first started: its sites reach it there, running or being restarted. */
  let port: number | null = null

  /** Starts the server (once at a time), recording how it went. */
  function bringUp(): Promise<void> {
    starting ??= (async () => {
      if (!server) return
      try {
        const started = await server.start()
        const { version } = started
        port = started.port
        const moved = port !== options.port
        info = { engine: 'mariadb', running: true, version, host: '127.0.0.1', port }
        log(
          moved ? 'warn' : 'info',
          { port, version },
          moved
            ? `the node's MariaDB keeps port ${port}, which it was made with (the sites' configurations name it), not ${options.port}`
            : `the node's MariaDB serves its sites on 127.0.0.1:${port}`,
        )
      } catch (error) {
        info = { engine: 'mariadb', running: false, reason: failureReason(error) }
        log('error', { err: info.reason }, `the node's MariaDB did not start; trying again`)
      }
    })().finally(() => {
      starting = null
    })
    return starting
  }

  /** What the node says of it now: a server that died since it started is not running. */
  function current(): NodeDatabaseInfo {
    if (info.running && server && !server.running())
      return { engine: 'mariadb', running: false, reason: 'it stopped; it is being started again' }
    return info
  }

  /** The engine's operation `request` names, on the node's own server (started first if it is not running). */
  async function runEngine(request: DatabaseNodeRequest): Promise<unknown> {
    if (server && !current().running) await bringUp()
    const now = current()
    if (!server || !now.running)
      throw new NodeRefusal(
        'server_unreachable',
        `The node's database server is not running${now.reason ? `: ${now.reason}` : now.starting ? ' yet: it is being made' : ''}`,
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
    describe: async () => ({ ...current() }),
    sitePorts: () => (port === null ? [] : [port]),
    sitePortsAtRest: (dataDir) => {
      const made = madePort(dataDir)
      return made === null ? [] : [made]
    },
    lacks() {
      const now = current()
      return now.running || now.starting || !now.reason
        ? []
        : [{ what: `a running MariaDB (${now.reason})`, for: 'a database server of the node’s own' }]
    },
    async start(host) {
      log = host.log
      server = nodeMariadb(programs, { dir: host.dataDir, port: options.port })
      await bringUp()
      // Looked at from then on: a server that died starts again, one that could not start is tried again.
      const watch = setInterval(() => {
        if (starting || current().running) return
        if (info.running) log('warn', {}, `the node's MariaDB stopped; starting it again`)
        void bringUp()
      }, options.watchEveryMs ?? 10_000)
      watch.unref?.()
      // The server keeps running when the node's process stops: its sites need it across restarts.
      return async () => {
        clearInterval(watch)
        await starting
        await engine?.close()
      }
    },
  }
}
