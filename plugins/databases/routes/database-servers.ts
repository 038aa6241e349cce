// Database servers for platform staff: add one (after a connection test), list, read, change.

import {
  defineRoute,
  enumOf,
  fieldProblem,
  newId,
  nowIso,
  orNotFound,
  type PluginContext,
  Problem,
  Reply,
  type RouteDefinition,
  refuseWhileBlocked,
  t,
} from '../../../core/index.ts'
import {
  DatabaseServer,
  databaseScopes,
  databaseServerDependents,
  engineNames,
  serverStatuses,
} from '../contract.ts'
import type { DatabaseServersTable } from '../migrations.ts'
import { allowedHostOf } from '../naming.ts'
import { databasesProblems } from '../problems.ts'
import {
  databaseCounts,
  deleteServer,
  findServerRow,
  insertServer,
  type ServerListRow,
  serverNameTaken,
  serversWithCounts,
  toServer,
  updateServer,
} from '../repository.ts'
import { accessOf, type Engines, serverProblem } from '../server-access.ts'

const ServerName = t.String({
  minLength: 1,
  maxLength: 63,
  pattern: '^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$',
  description:
    'Name of the server: letters, digits, `.`, `_` and `-`, starting and ending with a letter or digit.',
})
const Host = t.String({
  minLength: 1,
  maxLength: 253,
  description: 'Host name or IP address (`db-1.example.net`).',
})
const Port = t.Integer({
  minimum: 1,
  maximum: 65535,
  description: 'TCP port (MariaDB 3306, PostgreSQL 5432).',
})
const Username = t.String({
  minLength: 1,
  maxLength: 128,
  description: 'The administrator the panel connects as.',
})
const Password = t.String({
  maxLength: 1024,
  description: 'The administrator’s password (may be empty); sealed at rest and never returned.',
})
const Capacity = t.Union([t.Integer({ minimum: 0, maximum: 1_000_000 }), t.Null()], {
  description: 'How many databases it may hold; null (the default) for no limit.',
})
const Status = enumOf(serverStatuses, {
  description: '`active` (default) servers receive new databases; `draining` and `disabled` receive none.',
})

const CreateServerBody = t.Object(
  {
    name: ServerName,
    engine: enumOf(engineNames, { description: '`mariadb` or `postgresql`.' }),
    host: Host,
    port: Port,
    username: Username,
    password: Password,
    capacity: t.Optional(Capacity),
    status: t.Optional(Status),
  },
  { $id: 'CreateDatabaseServerBody' },
)

const UpdateServerBody = t.Object(
  {
    name: t.Optional(ServerName),
    host: t.Optional(Host),
    port: t.Optional(Port),
    username: t.Optional(Username),
    password: t.Optional(Password),
    capacity: t.Optional(Capacity),
    status: t.Optional(Status),
  },
  {
    $id: 'UpdateDatabaseServerBody',
    description:
      'Fields to change; omitted ones stay. A change of host, port, user name or password is tested before it is kept. The engine cannot change.',
  },
)

const ListServersQuery = t.Object({
  engine: t.Optional(enumOf(engineNames, { description: 'Only servers of this engine.' })),
  status: t.Optional(enumOf(serverStatuses, { description: 'Only servers in this state.' })),
})

const ServerParams = { id: 'dbs' } as const
const connectionProblems = [
  databasesProblems.server_failed,
  databasesProblems.server_unreachable,
  databasesProblems.server_login_failed,
  databasesProblems.server_privileges_missing,
]

/** The database server routes (platform staff). */
export function databaseServerRoutes(context: PluginContext, engines: Engines): RouteDefinition[] {
  const { db, transaction, secrets } = context

  const dependents = context.extensionPoint(databaseServerDependents)
  const withCount = async (row: DatabaseServersTable) =>
    toServer(row, (await databaseCounts(db, [row.id])).get(row.id) ?? 0)

  return [
    defineRoute({
      method: 'GET',
      path: '/database-servers',
      operationId: 'listDatabaseServers',
      summary: 'List database servers',
      description:
        'Platform staff only. Every database server, oldest first; `engine` and `status` narrow the list.',
      scope: databaseScopes.serverRead,
      staff: true,
      query: ListServersQuery,
      list: {
        item: DatabaseServer,
        key: 'database_servers.id',
        toItem: (row) => toServer(row as ServerListRow, Number((row as ServerListRow).database_count ?? 0)),
        filters: { engine: 'database_servers.engine', status: 'database_servers.status' },
      },
      handler: () => serversWithCounts(db),
    }),
    defineRoute({
      method: 'GET',
      path: '/database-servers/:id',
      operationId: 'getDatabaseServer',
      summary: 'Read a database server',
      scope: databaseScopes.serverRead,
      staff: true,
      params: ServerParams,
      responses: { 200: { description: 'The server.', schema: DatabaseServer } },
      async handler({ params }) {
        return withCount(orNotFound(await findServerRow(db, params.id)))
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/database-servers',
      operationId: 'createDatabaseServer',
      idempotent: true,
      summary: 'Add a database server',
      description:
        'Platform staff only. Connects to the server as the administrator given and checks it may create databases and users; only then is the server kept (the password sealed, never returned). 422 with the test’s code otherwise, and nothing is stored.',
      scope: databaseScopes.serverManage,
      staff: true,
      body: CreateServerBody,
      responses: {
        201: {
          description: 'The new server.',
          schema: DatabaseServer,
          headers: { Location: 'URL of the server.' },
        },
      },
      problems: [
        ...connectionProblems,
        databasesProblems.invalid_allowed_host,
        databasesProblems.database_server_name_taken,
      ],
      change: {
        action: 'database_server.create',
        details: ({ name, engine, host, port, status }) => ({ name, engine, host, port, status }),
      },
      // The server is reached and tested before the transaction: a slow or silent server holds nothing.
      async prepare({ db, body }) {
        const host = allowedHostOf(body.host)
        if (!host)
          throw fieldProblem(
            databasesProblems.invalid_allowed_host,
            'body.host',
            'is not a host name or IP address',
          )
        if (await serverNameTaken(db, body.name))
          throw fieldProblem(databasesProblems.database_server_name_taken, 'body.name')
        const access = { host, port: body.port, username: body.username, password: body.password }
        try {
          return { host, version: (await engines(body.engine).check(access)).version }
        } catch (error) {
          throw serverProblem(error, 'body')
        }
      },
      async handler({ trx, body, prepared: { host, version } }) {
        const now = nowIso()
        const row: DatabaseServersTable = {
          id: newId('dbs'),
          name: body.name,
          engine: body.engine,
          host,
          port: body.port,
          username: body.username,
          password_sealed: secrets.seal(body.password),
          status: body.status ?? 'active',
          version,
          capacity: body.capacity ?? null,
          node_id: null,
          created_at: now,
          updated_at: now,
        }
        if (await serverNameTaken(trx, row.name))
          throw fieldProblem(databasesProblems.database_server_name_taken, 'body.name')
        await insertServer(trx, row)
        return toServer(row, 0)
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/database-servers/:id',
      operationId: 'updateDatabaseServer',
      summary: 'Change a database server',
      description:
        'Platform staff only. Renames it, changes its status or capacity, or how the panel reaches it; new connection details are tested before they are kept (422 with the test’s code otherwise, nothing changed).',
      scope: databaseScopes.serverManage,
      staff: true,
      params: ServerParams,
      body: UpdateServerBody,
      responses: { 200: { description: 'The server.', schema: DatabaseServer } },
      problems: [
        ...connectionProblems,
        databasesProblems.invalid_allowed_host,
        databasesProblems.database_server_name_taken,
        databasesProblems.node_database_server,
      ],
      async handler({ params, body, audit }) {
        const current = orNotFound(await findServerRow(db, params.id))
        let host = current.host
        if (body.host !== undefined) {
          const given = allowedHostOf(body.host)
          if (!given)
            throw fieldProblem(
              databasesProblems.invalid_allowed_host,
              'body.host',
              'is not a host name or IP address',
            )
          host = given
        }
        const reached =
          body.host !== undefined ||
          body.port !== undefined ||
          body.username !== undefined ||
          body.password !== undefined
        // A node's own server is reached through its node, with the node's credentials: its address is the node's.
        if (reached && current.node_id !== null)
          throw fieldProblem(
            databasesProblems.node_database_server,
            `body.${['host', 'port', 'username', 'password'].find((field) => field in body)}`,
          )
        const access = {
          ...accessOf(secrets, current),
          host,
          ...(body.port !== undefined ? { port: body.port } : {}),
          ...(body.username !== undefined ? { username: body.username } : {}),
          ...(body.password !== undefined ? { password: body.password } : {}),
        }
        let version = current.version
        if (reached) {
          try {
            ;({ version } = await engines(current.engine as (typeof engineNames)[number]).check(access))
          } catch (error) {
            throw serverProblem(error, 'body')
          }
        }
        const changes = {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.status !== undefined ? { status: body.status } : {}),
          ...(body.capacity !== undefined ? { capacity: body.capacity } : {}),
          ...(reached
            ? {
                host,
                port: access.port,
                username: access.username,
                password_sealed: secrets.seal(access.password),
                version,
              }
            : {}),
          updated_at: nowIso(),
        }
        const row = await transaction(async (trx) => {
          orNotFound(await findServerRow(trx, params.id))
          if (body.name !== undefined && (await serverNameTaken(trx, body.name, params.id)))
            throw fieldProblem(databasesProblems.database_server_name_taken, 'body.name')
          await updateServer(trx, params.id, changes)
          const { password_sealed: _sealed, ...shown } = changes
          await audit(trx, {
            action: 'database_server.update',
            subject: { type: 'database_server', id: params.id },
            customerId: null,
            // What changed, never the password: only that it did.
            details: { ...shown, ...(body.password !== undefined ? { password: 'changed' } : {}) },
          })
          return orNotFound(await findServerRow(trx, params.id))
        })
        // Old connections used the old credentials: the next use opens new ones.
        if (reached)
          await engines(current.engine as (typeof engineNames)[number]).close(accessOf(secrets, current))
        return withCount(row)
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/database-servers/:id',
      operationId: 'deleteDatabaseServer',
      summary: 'Delete a database server',
      description:
        'Platform staff only. Forgets a server that holds nothing: refused with 409 `database_server_in_use` (naming the `blockers`) while databases or database users of any state are on it; a node’s own server goes with its node instead (409 `database_server_of_node`). Nothing on the server itself is touched. Audited as `database_server.delete`; the server then answers 404.',
      scope: databaseScopes.serverManage,
      staff: true,
      params: ServerParams,
      responses: { 204: { description: 'The server is forgotten.' } },
      problems: [databasesProblems.database_server_in_use, databasesProblems.database_server_of_node],
      async handler({ params, audit }) {
        const row = await transaction(async (trx) => {
          const found = orNotFound(await findServerRow(trx, params.id))
          if (found.node_id !== null) throw new Problem(databasesProblems.database_server_of_node)
          const server = { id: found.id, name: found.name }
          await refuseWhileBlocked(
            dependents,
            trx,
            server,
            databasesProblems.database_server_in_use,
            `The database server ${found.name}`,
          )
          await deleteServer(trx, found.id)
          await audit(trx, {
            action: 'database_server.delete',
            subject: { type: 'database_server', id: found.id },
            customerId: null,
            details: { name: found.name, engine: found.engine, host: found.host, port: found.port },
          })
          return found
        })
        // The connections kept to it are of no more use.
        await engines(row.engine as (typeof engineNames)[number]).close(accessOf(secrets, row))
        return Reply.noContent()
      },
    }),
  ]
}
