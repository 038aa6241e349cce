// Database operations: create (its job makes it on a server), list, read, delete.

import {
  defineRoute,
  enumOf,
  FieldErrors,
  fieldProblem,
  kernelProblems,
  orNotFound,
  type PluginContext,
  Problem,
  Reply,
  type RouteDefinition,
  t,
} from '../../../core/index.ts'
import { assertCustomerOpen, customerDirectory, openCustomerProblems } from '../../customers/contract.ts'
import { nodeDirectory } from '../../nodes/contract.ts'
import { siteDirectory } from '../../sites/contract.ts'
import { Database, databaseScopes, databaseStatuses, engineNames } from '../contract.ts'
import { ChosenName } from '../formats.ts'
import { startDatabaseDeletion, startDatabaseSync } from '../lifecycle.ts'
import type { DatabasesTable } from '../migrations.ts'
import { realNameOf } from '../naming.ts'
import { placementOn } from '../placement.ts'
import { databasesProblems } from '../problems.ts'
import {
  type DatabaseListRow,
  databaseNameTakenOnEngine,
  findServerRow,
  insertDatabase,
  newDatabaseRow,
  toDatabase,
  visibleDatabases,
} from '../repository.ts'
import { siteNodeOf } from '../site-reach.ts'

const Engine = enumOf(engineNames, { description: '`mariadb` or `postgresql`.' })

const CreateDatabaseBody = t.Object(
  {
    customerId: t.String({ minLength: 1, maxLength: 64, description: 'The owning customer, `cus_…`.' }),
    engine: Engine,
    name: ChosenName({
      minLength: 1,
      maxLength: 32,
      description:
        'The name the customer chooses: lower-case letters, digits and single underscores, starting with a letter, at most 32. The server sees it behind the customer’s prefix (`name` in the answer).',
    }),
    siteId: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 64,
        description: 'A site of the same customer the database belongs to: deleting the site deletes it.',
      }),
    ),
  },
  { $id: 'CreateDatabaseBody' },
)

const ListDatabasesQuery = t.Object({
  customerId: t.Optional(t.String({ maxLength: 64, description: 'Only this customer’s databases.' })),
  siteId: t.Optional(t.String({ maxLength: 64, description: 'Only databases of this site.' })),
  engine: t.Optional(Engine),
  status: t.Optional(enumOf(databaseStatuses, { description: 'Only databases in this state.' })),
})

const DatabaseParams = { id: 'db' } as const

/** The databases routes. */
export function databaseRoutes(context: PluginContext): RouteDefinition[] {
  const { db } = context
  const customers = context.use(customerDirectory)
  const sites = context.use(siteDirectory)
  const nodes = context.use(nodeDirectory)

  const answerOf = async (row: DatabasesTable) =>
    toDatabase(row, orNotFound(await findServerRow(db, row.server_id)))

  return [
    defineRoute({
      method: 'POST',
      path: '/databases',
      operationId: 'createDatabase',
      idempotent: true,
      summary: 'Create a database',
      description:
        'Creates the database in state `provisioning` on the active server of the engine with the fewest databases, and starts the `database.sync` job (`jobId`) that makes it on the server, closed to everyone but the users later granted on it; it becomes `active` then. The real name is the customer’s prefix, `_` and the name asked for (docs/databases.md). The customer’s limits must allow one more database (422 `database_limit_reached`).',
      scope: databaseScopes.manage,
      body: CreateDatabaseBody,
      responses: {
        201: {
          description: 'The new database.',
          schema: Database,
          headers: { Location: 'URL of the database.' },
        },
      },
      problems: [
        kernelProblems.unknown_customer,
        ...openCustomerProblems,
        databasesProblems.unknown_database_site,
        databasesProblems.no_database_server,
        databasesProblems.database_server_unreachable,
        databasesProblems.database_name_taken,
        databasesProblems.database_limit_reached,
        kernelProblems.customer_suspended,
      ],
      change: {
        action: 'database.create',
        event: 'database.created',
        details: (database) => ({
          name: database.name,
          engine: database.engine,
          serverId: database.serverId,
        }),
      },
      async handler({ trx, body, view, enqueueJob }) {
        const refusals = new FieldErrors()
        // Missing and invisible customers answer alike, so a limited token learns nothing about others.
        const customer = await customers.find(trx, view, body.customerId)
        if (!customer) refusals.add(kernelProblems.unknown_customer, 'body.customerId')
        else assertCustomerOpen(customer)
        const site = body.siteId === undefined ? null : await sites.find(trx, view, body.siteId)
        const siteRefused =
          body.siteId !== undefined &&
          (!site || site.customerId !== customer?.id || site.status === 'deleting')
        if (siteRefused) refusals.add(databasesProblems.unknown_database_site, 'body.siteId')
        if (!customer || siteRefused) throw refusals.toProblem()
        const name = realNameOf(customer.id, body.name)
        if (await databaseNameTakenOnEngine(trx, body.engine, name))
          throw fieldProblem(databasesProblems.database_name_taken, 'body.name')
        const node = site?.nodeId ? await nodes.find(site.nodeId, trx) : null
        const server = await placementOn(trx, body.engine, node ? siteNodeOf(node) : null)
        await context.quotas.reserve(trx, { customerId: customer.id, amounts: { databases: 1 } })
        const row = newDatabaseRow({
          customer_id: customer.id,
          site_id: site?.id ?? null,
          server_id: server.id,
          engine: body.engine,
          name,
        })
        await insertDatabase(trx, row)
        const synced = await startDatabaseSync(trx, enqueueJob, row)
        await context.usage.adjust(trx, customer.id, 'databases', 1)
        return toDatabase(synced, server)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/databases',
      operationId: 'listDatabases',
      summary: 'List databases',
      description:
        'Only databases of customers the caller may see, oldest first. Every filter narrows the list.',
      scope: databaseScopes.read,
      query: ListDatabasesQuery,
      list: {
        item: Database,
        key: 'databases.id',
        toItem: (row: DatabaseListRow) => toDatabase(row, row),
        filters: {
          customerId: 'databases.customer_id',
          siteId: 'databases.site_id',
          engine: 'databases.engine',
          status: 'databases.status',
        },
      },
      handler: ({ view }) => visibleDatabases(db, view),
    }),
    defineRoute({
      method: 'GET',
      path: '/databases/:id',
      operationId: 'getDatabase',
      summary: 'Read a database',
      scope: databaseScopes.read,
      params: DatabaseParams,
      responses: { 200: { description: 'The database.', schema: Database } },
      async handler({ params, view }) {
        const row = orNotFound(
          await visibleDatabases(db, view).where('databases.id', '=', params.id).executeTakeFirst(),
        )
        return toDatabase(row, row)
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/databases/:id',
      operationId: 'deleteDatabase',
      summary: 'Delete a database',
      description:
        'The database becomes `deleting`: every grant on it is revoked (each granted user’s job takes it off the server), and the `database.sync` job (`jobId`) drops it from the server and then from the panel, sending `database.deleted`. A `provisioning` database is dropped once its creation is undone. Answers 202 with the database.',
      scope: databaseScopes.manage,
      params: DatabaseParams,
      responses: { 202: { description: 'The database, now `deleting`.', schema: Database } },
      problems: [databasesProblems.database_busy],
      async handler({ params, view, enqueueJob, audit, emit }) {
        const row = await context.transaction(async (trx) => {
          const found = orNotFound(
            await visibleDatabases(trx, view).where('databases.id', '=', params.id).executeTakeFirst(),
          )
          if (found.status === 'deleting') throw new Problem(databasesProblems.database_busy)
          return startDatabaseDeletion(trx, { enqueueJob, audit, emit }, found)
        })
        return new Reply(202, await answerOf(row))
      },
    }),
  ]
}
