// The store for installations that outgrow one machine: PostgreSQL through postgres.js, behind the same contract
// as the embedded SQLite store, so no plugin ever branches on the engine.

import {
  type AlterTableNode,
  type CreateTableNode,
  DataTypeNode,
  Kysely,
  type KyselyPlugin,
  OperationNodeTransformer,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  sql,
  type UnknownRow,
} from 'kysely'
import { PostgresJSDialect, PostgresJSDriver } from 'kysely-postgres-js'
import postgres from 'postgres'
import { contentionGate } from './contention-gate.ts'
import { checkChannel, collectNotices, noticeOnCommit } from './notices.ts'
import type { BaseDatabase, Store, TransactionOptions, Trx } from './store.ts'
import { openTransaction } from './transaction-context.ts'

/** How the PostgreSQL store connects. */
export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database`. */
  readonly url: string
  /** Connections in the pool (`DATABASE_POOL_SIZE`). Default 10. LISTEN takes one more, of its own. */
  readonly poolSize?: number
  /** A schema to keep every table in (tests run each panel in a schema of its own). Default `public`. */
  readonly schema?: string
  /** Seconds after which an idle connection is closed. Default: kept open. */
  readonly idleTimeoutSeconds?: number
}

/** SQLSTATEs of transactions PostgreSQL asks to be run again: serialization failure, deadlock. */
const retryable = new Set(['40001', '40P01'])
/** How long `close()` lets queries still running finish before closing their connections. */
const closeTimeoutSeconds = 2
/**
 * Attempts of one transaction before its serialization failure reaches the caller. Serializable isolation lets at
 * least one of the colliding transactions commit each time, so under a burst of writes to shared rows every one
 * gets through within a few rounds; the pauses grow so that a burst spreads out instead of colliding again.
 */
const maxAttempts = 30
/** The longest pause between two attempts, in ms: with `maxAttempts`, a few seconds in all at worst. */
const maxPauseMs = 250

/**
 * `integer` in a migration means a 64-bit integer, as it does on SQLite: counters and sizes (disk in MB summed over
 * an installation, bytes of traffic) outgrow PostgreSQL's 32-bit `integer`.
 */
class WideIntegers extends OperationNodeTransformer {
  protected override transformDataType(node: DataTypeNode): DataTypeNode {
    return node.dataType === 'integer' ? DataTypeNode.create('bigint') : node
  }
}

const wideIntegers: KyselyPlugin = {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const { node } = args
    if (node.kind !== 'CreateTableNode' && node.kind !== 'AlterTableNode') return node
    return new WideIntegers().transformNode(node as CreateTableNode | AlterTableNode)
  },
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result
  },
}

/**
 * postgres.js's driver, refusing a connection to a query made outside the transaction its caller holds (through the
 * store's `db`, not the transaction's `trx`): it would take a second connection while the first is held, and with
 * the pool busy every such transaction would wait for the others for ever (on SQLite it waits for its own).
 */
class GuardedDriver extends PostgresJSDriver {
  override async acquireConnection(...args: Parameters<PostgresJSDriver['acquireConnection']>) {
    if (openTransaction.getStore()?.open)
      throw new Error(
        'A query went through the store while a transaction was open in the same call: read and write through its trx',
      )
    return super.acquireConnection(...args)
  }
}

class GuardedDialect extends PostgresJSDialect {
  readonly #config: ConstructorParameters<typeof PostgresJSDialect>[0]
  constructor(config: ConstructorParameters<typeof PostgresJSDialect>[0]) {
    super(config)
    this.#config = config
  }
  override createDriver() {
    return new GuardedDriver(this.#config)
  }
}

/**
 * The server's name of a store's channel: PostgreSQL channels are global to the database, so a channel is named
 * within the store's schema, and two installations (or two test panels) in one database do not wake each other.
 */
function channelName(schema: string, channel: string): string {
  const name = `plinth.${schema}.${checkChannel(channel)}`
  // A channel name is an identifier: at most 63 bytes.
  return name.length <= 63 ? name : `plinth.${Bun.hash(name).toString(36)}`
}

function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && retryable.has(code)
}

/**
 * postgres.js types reading int8 (counts, sums, 64-bit integers) as numbers, as SQLite gives them; every value the
 * panel keeps fits. For any other connection that must read the store's rows as the store does (the bench's ceiling).
 */
export const int8AsNumber = {
  bigint: {
    to: 20,
    from: [20],
    parse: (value: string) => Number(value),
    serialize: (value: number | bigint) => value.toString(),
  },
}

/** Opens a PostgreSQL store. Nothing connects until the first query. */
export function openPostgresStore(options: PostgresStoreOptions): Store {
  const listeners = new Set<(sql: string) => void>()
  const connection = postgres(options.url, {
    max: options.poolSize ?? 10,
    ...(options.idleTimeoutSeconds ? { idle_timeout: options.idleTimeoutSeconds } : {}),
    types: int8AsNumber,
    onnotice: () => {},
    ...(options.schema ? { connection: { search_path: options.schema } } : {}),
  })
  const db = new Kysely<BaseDatabase>({
    dialect: new GuardedDialect({ postgres: connection }),
    plugins: [wideIntegers],
    log(event) {
      for (const listener of listeners) listener(event.query.sql)
    },
  })
  const schema = options.schema ?? 'public'
  /** Sends the notices of one transaction through `on` (delivered when it commits, at once outside one). */
  const send = async (on: Trx | typeof db, channels: Iterable<string>) => {
    const names = [...channels].map((channel) => sql`pg_notify(${channelName(schema, channel)}, '')`)
    if (names.length > 0) await sql`select ${sql.join(names)}`.execute(on)
  }
  let isOpen = true
  const gate = contentionGate()
  return {
    dialect: 'postgres',
    db,
    /**
     * Serializable, so what a transaction read is what it writes against (a unique name, the last slot), as on
     * SQLite's single writer; a transaction PostgreSQL refuses to serialize (or a deadlock victim) is run again.
     */
    async transaction<T>(work: (trx: Trx) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
      const isolation = options.isolation ?? 'serializable'
      // Read committed transactions lock what they depend on, and wait instead of colliding: never gated.
      const gated = isolation === 'serializable'
      for (let attempt = 1; ; attempt++) {
        try {
          const run = () =>
            db
              .transaction()
              .setIsolationLevel(isolation)
              .execute(async (trx) => {
                const state = { open: true }
                try {
                  const { result, channels } = await collectNotices(trx, () =>
                    openTransaction.run(state, () => work(trx)),
                  )
                  // Inside the transaction: the server delivers them when it commits, and drops them if it fails.
                  await send(trx, channels)
                  return result
                } finally {
                  // Work it started that outlives it (a timer, a nudge) is not inside it any more.
                  state.open = false
                }
              })
          return await (gated ? gate.run(attempt > 1, run) : run())
        } catch (error) {
          if (!isRetryable(error) || attempt >= maxAttempts) throw error
          gate.collided()
          // Jittered, growing pauses: the transactions that collided do not collide again in lockstep.
          await Bun.sleep(Math.random() * Math.min(maxPauseMs, 2 ** attempt))
        }
      }
    },
    async tables(on = db) {
      const rows = await sql<{ name: string }>`select table_name as name from information_schema.tables
        where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(on)
      return rows.rows.map((row) => row.name)
    },
    observeStatements(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    async notify(on, channel) {
      if (!(await noticeOnCommit(on, channel))) await send(on, [channel])
    },
    async listen(channel, listener) {
      // postgres.js listens on one connection of its own and listens again after it reconnects, calling the
      // second function each time it (re)starts listening: notices sent meanwhile are lost, so that wakes too.
      const name = channelName(schema, channel)
      const wake = () => {
        try {
          listener()
        } catch {
          // A wake-up that failed is made good by the listener's own polling; the connection must read on.
        }
      }
      const { unlisten } = await connection.listen(name, wake, wake)
      return async () => {
        if (isOpen) await unlisten()
      }
    },
    get isOpen() {
      return isOpen
    },
    async close() {
      if (!isOpen) return
      isOpen = false
      // postgres.js (3.4, under Bun) never finishes ending while a connection reserved before the end is out, even
      // once it is given back (a lease renewed as the panel closed): queries still running get this long, then
      // their connections are closed. Ended first, so the driver's own end below is this one.
      const ending = connection.end({ timeout: closeTimeoutSeconds })
      await db.destroy()
      await ending
    },
  }
}
