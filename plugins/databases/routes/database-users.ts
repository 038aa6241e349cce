// Database user operations: create (password shown once), list, read, change grants and hosts, rotate the
// password, delete. The server follows through each user's `database_user.sync` job.

import {
  type Db,
  defineRoute,
  enumOf,
  FieldErrors,
  fieldProblem,
  kernelProblems,
  newId,
  nowIso,
  orNotFound,
  type PluginContext,
  Problem,
  Reply,
  type RouteDefinition,
  type TenantView,
  type Trx,
  t,
} from '../../../core/index.ts'
import { customerDirectory } from '../../customers/contract.ts'
import { nodeDirectory } from '../../nodes/contract.ts'
import {
  type DatabaseGrant,
  DatabaseUser,
  databaseScopes,
  engineNames,
  DatabaseGrant as GrantSchema,
} from '../contract.ts'
import type { EngineName } from '../engines/engine.ts'
import { ChosenName } from '../formats.ts'
import { changeUser, startUserDeletion, startUserSync } from '../lifecycle.ts'
import type { DatabaseServersTable, DatabaseUsersTable } from '../migrations.ts'
import { allowedHostOf, loopbackHosts, realNameOf } from '../naming.ts'
import { generatePassword, isStrongPassword, verifierFor } from '../passwords.ts'
import { placementOn } from '../placement.ts'
import { databasesProblems } from '../problems.ts'
import {
  databaseRowsOf,
  findServerRow,
  insertUser,
  setGrantRows,
  toUser,
  type UserListRow,
  usernameTaken,
  visibleUsers,
} from '../repository.ts'

const Password = t.String({
  minLength: 1,
  maxLength: 128,
  description:
    'A password of your own: 16 to 128 printable ASCII characters with three of lower case, upper case, digits and other characters (422 `weak_password`). Left out, the panel generates one. Never stored by the panel.',
})
const AllowedHosts = t.Array(t.String({ minLength: 1, maxLength: 253 }), {
  minItems: 1,
  maxItems: 50,
  description:
    'Client hosts (IP addresses or host names, no wildcards) the login is accepted from. Default: `127.0.0.1`, `localhost` and the host names of the active nodes, where the customer’s sites run. MariaDB enforces it per account; on PostgreSQL the server’s pg_hba.conf decides.',
})
const Grants = t.Array(GrantSchema, {
  maxItems: 100,
  description: 'Databases of the same customer on the user’s server, and the access to each.',
})

const CreateUserBody = t.Object(
  {
    customerId: t.String({ minLength: 1, maxLength: 64, description: 'The owning customer, `cus_…`.' }),
    name: ChosenName({
      minLength: 1,
      maxLength: 32,
      description:
        'The name the customer chooses (as for databases); the login on the server is the customer’s prefix, `_` and this name (`username` in the answer).',
    }),
    serverId: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 64,
        description:
          'The server the login lives on (`serverId` of the customer’s databases). Default: the server of the first granted database, else the active server of `engine` with the fewest databases.',
      }),
    ),
    engine: t.Optional(
      enumOf(engineNames, {
        description: 'The engine, when neither `serverId` nor `grants` says the server.',
      }),
    ),
    password: t.Optional(Password),
    allowedHosts: t.Optional(AllowedHosts),
    grants: t.Optional(Grants),
  },
  { $id: 'CreateDatabaseUserBody' },
)

const UpdateUserBody = t.Object(
  { grants: t.Optional(Grants), allowedHosts: t.Optional(AllowedHosts) },
  {
    $id: 'UpdateDatabaseUserBody',
    description:
      'What to change; omitted fields stay. `grants` replaces all of them. The server follows in the user’s job.',
  },
)

const RotatePasswordBody = t.Object(
  { password: t.Optional(Password) },
  {
    $id: 'RotateDatabasePasswordBody',
    description: 'Optionally the new password; left out, the panel generates one.',
  },
)

const UserWithPassword = t.Object(
  {
    ...DatabaseUser.properties,
    password: t.String({
      description:
        'The password, shown this once: the panel keeps only what the server keeps (its hash), and only until the job gave it to the server. It works once `jobId` has succeeded.',
    }),
  },
  { $id: 'DatabaseUserWithPassword' },
)

const ListUsersQuery = t.Object({
  customerId: t.Optional(t.String({ maxLength: 64, description: 'Only this customer’s users.' })),
  serverId: t.Optional(t.String({ maxLength: 64, description: 'Only users on this server.' })),
  engine: t.Optional(enumOf(engineNames, { description: 'Only users on servers of this engine.' })),
})

const UserParams = { id: 'dbu' } as const

/** The database users routes. */
export function databaseUserRoutes(context: PluginContext): RouteDefinition[] {
  const { db } = context
  const customers = context.use(customerDirectory)
  const nodes = context.use(nodeDirectory)

  /** The password to set: the one given (checked) or a new one. */
  function passwordOf(given: string | undefined, location: string): string {
    if (given === undefined) return generatePassword()
    if (!isStrongPassword(given)) throw fieldProblem(databasesProblems.weak_password, location)
    return given
  }

  /** The hosts given, normalised and de-duplicated, or the default ones. */
  async function hostsOf(trx: Trx, given: readonly string[] | undefined): Promise<string[]> {
    if (given === undefined) {
      const nodeHosts = (await nodes.activeNodes(trx)).map((node) => node.hostname.toLowerCase())
      return [...new Set([...loopbackHosts, ...nodeHosts.flatMap((host) => allowedHostOf(host) ?? [])])]
    }
    const refusals = new FieldErrors()
    const hosts = given.map((host, index) => {
      const normal = allowedHostOf(host)
      if (!normal) refusals.add(databasesProblems.invalid_allowed_host, `body.allowedHosts.${index}`)
      return normal ?? ''
    })
    if (hosts.includes('')) throw refusals.toProblem()
    return [...new Set(hosts)]
  }

  /**
   * The grants checked: each names a database of `customerId` the view reaches, not being deleted, on `serverId`
   * (or on the server of the first one when `serverId` is null), at most once. Answers the grants and the server.
   */
  async function checkedGrants(
    trx: Trx,
    view: TenantView,
    customerId: string,
    grants: readonly DatabaseGrant[],
    serverId: string | null,
  ): Promise<{ grants: DatabaseGrant[]; serverId: string | null }> {
    const rows = new Map(
      (
        await databaseRowsOf(
          trx,
          grants.map((grant) => grant.databaseId),
        )
      ).map((row) => [row.id, row]),
    )
    const refusals = new FieldErrors()
    let server = serverId
    let refused = false
    const seen = new Set<string>()
    for (const [index, grant] of grants.entries()) {
      const location = `body.grants.${index}.databaseId`
      const row = rows.get(grant.databaseId)
      const visible =
        row && row.customer_id === customerId && (await customers.find(trx, view, row.customer_id))
      if (!row || !visible || row.status === 'deleting') {
        refusals.add(databasesProblems.unknown_database, location)
        refused = true
        continue
      }
      if (seen.has(row.id)) {
        refusals.add(databasesProblems.duplicate_grant, location)
        refused = true
        continue
      }
      seen.add(row.id)
      server ??= row.server_id
      if (row.server_id !== server) {
        refusals.add(databasesProblems.database_on_other_server, location)
        refused = true
      }
    }
    if (refused) throw refusals.toProblem()
    return { grants: grants.map(({ databaseId, access }) => ({ databaseId, access })), serverId: server }
  }

  async function userIn(trx: Db, view: TenantView, id: string): Promise<UserListRow> {
    return orNotFound(await visibleUsers(trx, view).where('database_users.id', '=', id).executeTakeFirst())
  }

  return [
    defineRoute({
      method: 'POST',
      path: '/database-users',
      operationId: 'createDatabaseUser',
      idempotent: true,
      showsSecret: true,
      summary: 'Create a database user',
      description:
        'Creates a login on a database server for the customer, with its grants and allowed hosts, in state `provisioning`; the `database_user.sync` job (`jobId`) makes it on the server. The answer carries the password, shown this once (generated unless given). The login never gets rights beyond the databases granted: no creating users, no granting, no server administration.',
      scope: databaseScopes.manage,
      body: CreateUserBody,
      responses: {
        201: {
          description: 'The new user with its password (shown once).',
          schema: UserWithPassword,
          headers: { Location: 'URL of the user.' },
        },
      },
      problems: [
        kernelProblems.customer_suspended,
        databasesProblems.unknown_database_server,
        databasesProblems.no_database_server,
        databasesProblems.database_username_taken,
        databasesProblems.weak_password,
        databasesProblems.invalid_allowed_host,
        databasesProblems.unknown_database,
        databasesProblems.database_on_other_server,
        databasesProblems.duplicate_grant,
      ],
      change: {
        action: 'database_user.create',
        event: 'database_user.created',
        customer: 'customerId',
        details: (user) => ({ username: user.username, serverId: user.serverId, grants: user.grants }),
        // The user without the password the answer shows once: events go to webhooks and stay in the outbox.
        payload: ({ password: _shownOnce, ...user }) => user,
      },
      async handler({ trx, body, view, enqueueJob }) {
        // The kernel found the customer in view and open (`change.customer`).
        const customer = { id: body.customerId }
        if ((await context.quotas.of(trx, customer.id)).source === 'suspended')
          throw new Problem(kernelProblems.customer_suspended)
        const password = passwordOf(body.password, 'body.password')
        let server: DatabaseServersTable | undefined
        if (body.serverId !== undefined) {
          server = await findServerRow(trx, body.serverId)
          if (
            !server ||
            server.status === 'disabled' ||
            (body.engine !== undefined && server.engine !== body.engine)
          )
            throw fieldProblem(databasesProblems.unknown_database_server, 'body.serverId')
        }
        const checked = await checkedGrants(trx, view, customer.id, body.grants ?? [], server?.id ?? null)
        if (!server && checked.serverId) server = await findServerRow(trx, checked.serverId)
        if (!server && body.engine !== undefined) server = await placementOn(trx, body.engine)
        if (!server)
          throw fieldProblem(
            databasesProblems.unknown_database_server,
            'body.serverId',
            'give `serverId`, `engine` or a grant',
          )
        const username = realNameOf(customer.id, body.name)
        if (await usernameTaken(trx, server.id, username))
          throw fieldProblem(databasesProblems.database_username_taken, 'body.name')
        const now = nowIso()
        const row: DatabaseUsersTable = {
          id: newId('dbu'),
          customer_id: customer.id,
          site_id: null,
          server_id: server.id,
          engine: server.engine,
          username,
          allowed_hosts: JSON.stringify(await hostsOf(trx, body.allowedHosts)),
          grants: '[]',
          status: 'provisioning',
          locked: 0,
          pending_verifier: context.secrets.seal(verifierFor(server.engine as EngineName, password)),
          revision: 0,
          applied_revision: -1,
          drift: null,
          job_id: null,
          sync_job: null,
          sync_until: null,
          created_at: now,
          updated_at: now,
        }
        await insertUser(trx, row)
        await setGrantRows(trx, row.id, checked.grants)
        const created = await startUserSync(trx, enqueueJob, row)
        return { ...toUser(created, server), password }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/database-users',
      operationId: 'listDatabaseUsers',
      summary: 'List database users',
      description: 'Only users of customers the caller may see, oldest first. Every filter narrows the list.',
      scope: databaseScopes.read,
      query: ListUsersQuery,
      list: {
        item: DatabaseUser,
        key: 'database_users.id',
        toItem: (row: UserListRow) => toUser(row, row),
        filters: {
          customerId: 'database_users.customer_id',
          serverId: 'database_users.server_id',
          engine: 'database_users.engine',
        },
      },
      handler: ({ view }) => visibleUsers(db, view),
    }),
    defineRoute({
      method: 'GET',
      path: '/database-users/:id',
      operationId: 'getDatabaseUser',
      summary: 'Read a database user',
      scope: databaseScopes.read,
      params: UserParams,
      responses: { 200: { description: 'The user (never its password).', schema: DatabaseUser } },
      async handler({ params, view }) {
        const row = await userIn(db, view, params.id)
        return toUser(row, row)
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/database-users/:id',
      operationId: 'updateDatabaseUser',
      summary: 'Change a database user’s grants or hosts',
      description:
        '`grants` replaces the user’s grants, `allowedHosts` its hosts; the `database_user.sync` job (`jobId`) applies them on the server, revoking what is no longer granted.',
      scope: databaseScopes.manage,
      params: UserParams,
      body: UpdateUserBody,
      responses: { 200: { description: 'The user.', schema: DatabaseUser } },
      problems: [
        databasesProblems.database_user_busy,
        databasesProblems.invalid_allowed_host,
        databasesProblems.unknown_database,
        databasesProblems.database_on_other_server,
        databasesProblems.duplicate_grant,
      ],
      async handler({ params, body, view, enqueueJob, audit, emit }) {
        return context.transaction(async (trx) => {
          const row = await userIn(trx, view, params.id)
          if (row.status === 'deleting') throw new Problem(databasesProblems.database_user_busy)
          const details: Record<string, unknown> = {}
          const changes: Partial<DatabaseUsersTable> = {}
          if (body.grants !== undefined) {
            const checked = await checkedGrants(trx, view, row.customer_id, body.grants, row.server_id)
            await setGrantRows(trx, row.id, checked.grants)
            details.grants = checked.grants
          }
          if (body.allowedHosts !== undefined) {
            const hosts = await hostsOf(trx, body.allowedHosts)
            changes.allowed_hosts = JSON.stringify(hosts)
            details.allowedHosts = hosts
          }
          const { host, port, ...current } = row
          const changed = await changeUser(trx, { enqueueJob, audit, emit }, current, {
            changes,
            action: 'database_user.update',
            details,
          })
          return toUser(changed, { host, port })
        })
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/database-users/:id/rotate-password',
      operationId: 'rotateDatabaseUserPassword',
      idempotent: true,
      showsSecret: true,
      summary: 'Rotate a database user’s password',
      description:
        'Sets a new password (generated unless given), shown this once; the `database_user.sync` job (`jobId`) sets it on the server, after which the old one no longer works.',
      scope: databaseScopes.manage,
      params: UserParams,
      body: RotatePasswordBody,
      responses: {
        200: { description: 'The user with its new password (shown once).', schema: UserWithPassword },
      },
      problems: [databasesProblems.database_user_busy, databasesProblems.weak_password],
      async handler({ params, body, view, enqueueJob, audit, emit }) {
        const password = passwordOf(body.password, 'body.password')
        return context.transaction(async (trx) => {
          const row = await userIn(trx, view, params.id)
          if (row.status === 'deleting') throw new Problem(databasesProblems.database_user_busy)
          const { host, port, ...current } = row
          const verifier = context.secrets.seal(verifierFor(row.engine as EngineName, password))
          const changed = await changeUser(trx, { enqueueJob, audit, emit }, current, {
            changes: { pending_verifier: verifier },
            action: 'database_user.rotate_password',
          })
          return { ...toUser(changed, { host, port }), password }
        })
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/database-users/:id',
      operationId: 'deleteDatabaseUser',
      summary: 'Delete a database user',
      description:
        'The user becomes `deleting`; the `database_user.sync` job (`jobId`) ends its sessions, drops the login from the server and then removes it from the panel, sending `database_user.deleted`. Answers 202 with the user.',
      scope: databaseScopes.manage,
      params: UserParams,
      responses: { 202: { description: 'The user, now `deleting`.', schema: DatabaseUser } },
      problems: [databasesProblems.database_user_busy],
      async handler({ params, view, enqueueJob, audit, emit }) {
        const user = await context.transaction(async (trx) => {
          const row = await userIn(trx, view, params.id)
          if (row.status === 'deleting') throw new Problem(databasesProblems.database_user_busy)
          const { host, port, ...current } = row
          return toUser(await startUserDeletion(trx, { enqueueJob, audit, emit }, current), { host, port })
        })
        return new Reply(202, user)
      },
    }),
  ]
}
