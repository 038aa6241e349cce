// A node's own database server, as the panel keeps it: registered (or brought up to date) in the transaction that
// records what the node reports, and reached through the node, which runs each engine operation itself with
// credentials that never leave it.

import { newId, nowIso, type PluginContext, type Trx } from '../../core/index.ts'
import { type NodeDirectory, NodeRefusal, type NodeWatcher, nodeCommand } from '../nodes/contract.ts'
import { type DatabaseEngine, EngineError, type EngineName } from './engines/engine.ts'
import type { DatabaseServersTable, DatabasesTables } from './migrations.ts'
import { type DatabaseNodeRequest, databaseServiceName, type NodeDatabaseInfo } from './node/protocol.ts'
import { insertServer, serverNameTaken } from './repository.ts'

const tables = (db: Trx) => db.withTables<DatabasesTables>()

/** How long the panel waits for a node to run one engine operation. */
const operationTimeoutMs = 120_000

/** The engine codes a node's refusal keeps (the rest of what a node says is a fault worth another attempt). */
const engineCodes = new Set([
  'server_unreachable',
  'server_login_failed',
  'server_privileges_missing',
  'server_error',
])

/**
 * The engine of the server the node `nodeId` runs: every operation is sent to the node's `database` service (the
 * server access given is not sent: the node holds its own). A node that cannot be reached is `server_unreachable`.
 */
export function nodeDatabaseEngine(nodes: NodeDirectory, nodeId: string, engine: EngineName): DatabaseEngine {
  const ask = async (request: Omit<DatabaseNodeRequest, 'op'>): Promise<unknown> => {
    const node = await nodes.find(nodeId)
    if (!node)
      throw new EngineError(`The node ${nodeId} of the database server is gone`, 'server_unreachable')
    if (node.driver === 'agent' && !node.agent.connected)
      throw new EngineError(
        `The node ${node.name} of the database server is not connected`,
        'server_unreachable',
      )
    try {
      return await nodes.send(
        node,
        nodeCommand('node-call', { service: databaseServiceName, request: { op: 'engine', ...request } }),
        AbortSignal.timeout(operationTimeoutMs),
      )
    } catch (error) {
      if (error instanceof NodeRefusal && engineCodes.has(error.code))
        throw new EngineError(error.message, error.code as EngineError['code'])
      if (error instanceof NodeRefusal) throw new EngineError(error.message, 'server_error')
      throw error
    }
  }
  const method =
    <M extends DatabaseNodeRequest['method']>(name: M) =>
    (_server: unknown, ...args: unknown[]) =>
      ask({ method: name, args })
  return {
    name: engine,
    check: method('check') as DatabaseEngine['check'],
    createDatabase: method('createDatabase') as DatabaseEngine['createDatabase'],
    dropDatabase: method('dropDatabase') as DatabaseEngine['dropDatabase'],
    async databaseSizes(_server, names) {
      return new Map((await ask({ method: 'databaseSizes', args: [names] })) as [string, number][])
    },
    createUser: method('createUser') as DatabaseEngine['createUser'],
    setPassword: method('setPassword') as DatabaseEngine['setPassword'],
    setHosts: method('setHosts') as DatabaseEngine['setHosts'],
    dropUser: method('dropUser') as DatabaseEngine['dropUser'],
    setGrants: method('setGrants') as DatabaseEngine['setGrants'],
    readGrants: method('readGrants') as DatabaseEngine['readGrants'],
    setLocked: method('setLocked') as DatabaseEngine['setLocked'],
    namesStartingWith: method('namesStartingWith') as DatabaseEngine['namesStartingWith'],
    handOverDefinitions: method('handOverDefinitions') as DatabaseEngine['handOverDefinitions'],
    // The node keeps its own connections.
    close: async () => {},
  }
}

/** A free name for the node's server: `<node>-mariadb`, or with the node id's tail when staff took that one. */
async function nameFor(trx: Trx, nodeName: string, nodeId: string): Promise<string> {
  const plain = `${nodeName}-mariadb`.slice(0, 63)
  if (!(await serverNameTaken(trx, plain))) return plain
  return `${nodeName.slice(0, 40)}-mariadb-${nodeId.slice(-10).toLowerCase()}`
}

/**
 * Registers the server a node reports it runs (`capabilities.services.database`) as that node's database server,
 * or brings its address and version up to date; staff's choices (its name, status and capacity) are kept. A node
 * that no longer reports one keeps its row: what is on it stays, and operations fail until it comes back.
 */
export function nodeServerWatcher(context: PluginContext): NodeWatcher {
  return {
    name: 'databases',
    async reported(trx, node) {
      const info = node.agent.capabilities?.services[databaseServiceName] as NodeDatabaseInfo | undefined
      if (!info?.running || info.port === undefined) return
      const existing = await tables(trx)
        .selectFrom('database_servers')
        .selectAll()
        .where('node_id', '=', node.id)
        .executeTakeFirst()
      const address = { host: info.host ?? '127.0.0.1', port: info.port, version: info.version ?? 'unknown' }
      if (existing) {
        if (
          existing.host === address.host &&
          existing.port === address.port &&
          existing.version === address.version
        )
          return
        await tables(trx)
          .updateTable('database_servers')
          .set({ ...address, updated_at: nowIso() })
          .where('id', '=', existing.id)
          .execute()
        await context.audit(trx, {
          action: 'database_server.update',
          subject: { type: 'database_server', id: existing.id },
          customerId: null,
          details: { ...address, reason: 'reported by its node' },
        })
        return
      }
      const now = nowIso()
      const row: DatabaseServersTable = {
        id: newId('dbs'),
        name: await nameFor(trx, node.name, node.id),
        engine: info.engine,
        ...address,
        username: 'plinth_admin',
        // The node holds the administrator's password; the panel keeps none.
        password_sealed: context.secrets.seal(''),
        status: 'active',
        capacity: null,
        node_id: node.id,
        created_at: now,
        updated_at: now,
      }
      await insertServer(trx, row)
      await context.audit(trx, {
        action: 'database_server.register',
        subject: { type: 'database_server', id: row.id },
        customerId: null,
        details: { name: row.name, engine: row.engine, nodeId: node.id, host: row.host, port: row.port },
      })
    },
  }
}
