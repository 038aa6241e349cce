// Callers of API tokens kept between requests, for as long as the tables they are made of have not changed.

import type { ApiTokensTable, IdentityTables } from '../identity/identity-tables.ts'
import { preparedQuery } from '../store/prepared-query.ts'
import type { Db } from '../store/store.ts'
import { stampOf, watchTables } from '../store/table-watch.ts'
import type { Caller } from './caller.ts'

/**
 * What a token's caller is made of besides the token row: the user, their memberships, and which brand each
 * customer belongs to. A write to any of them, by this process or another, ends every kept caller. This process's
 * writes are seen by the statements that name these tables (in any case); so no trigger or foreign-key action may
 * write them, and whatever decides what a token may do must live in the token row or in these tables.
 */
const callerTables = ['users', 'memberships', 'tenants']

/** At most this many callers are kept; past it the oldest goes (a bound on memory, not a tuning knob). */
const maxKept = 10_000

/** A token row as read for a request, with the stamp its caller is kept under (null: nothing is kept). */
export interface TokenRead {
  readonly row: ApiTokensTable | undefined
  readonly stamp: string | null
}

/** Kept callers of API tokens, valid while a stamp of their tables is unchanged. */
export interface TokenCallers {
  /** Reads the token with this hash, afresh on every request (revocation and expiry count at once). */
  read(tokenHash: string): Promise<TokenRead>
  /** The same read done at once where the store can (SQLite with its connection free); null otherwise. */
  readNow(tokenHash: string): TokenRead | null
  /** The caller kept for this token row under `stamp` (as read with it), if any. */
  get(row: ApiTokensTable, stamp: string | null): Caller | undefined
  /** Keeps `caller`, made from this token row and what was read after it. */
  keep(row: ApiTokensTable, stamp: string | null, caller: Caller): void
  /**
   * The caller last kept for the token with this hash, without reading anything: a guess, right unless the token or
   * a table its caller is made of changed since. Only worth making where reading costs a round trip.
   */
  peek(tokenHash: string): Caller | undefined
}

function keyOf(row: ApiTokensTable): string {
  // Everything of the token row a caller is made of: a token changed in any of these is another caller.
  return `${row.id}\n${row.user_id}\n${row.customer_id ?? ''}\n${row.expires_at}\n${row.scopes}`
}

type RowWithVersion = ApiTokensTable & { readonly data_version: number }

/** The read of a token from its statement's rows; `writes` is this process's side of the stamp (null: unwatched). */
function readOf(rows: readonly ApiTokensTable[], writes: number | null): TokenRead {
  const [row] = rows
  const stamp = row && writes !== null ? stampOf((row as RowWithVersion).data_version, writes) : null
  return { row, stamp }
}

/** Sets `key` in `map` as its newest entry, the oldest going past `maxKept`. */
function keepNewest<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key)
  if (map.size >= maxKept) {
    const oldest = map.keys().next()
    if (!oldest.done) map.delete(oldest.value)
  }
  map.set(key, value)
}

/**
 * Callers kept per token on `db`'s store. On a store that cannot watch its tables cheaply nothing is kept, and
 * every request makes its caller afresh.
 */
export function tokenCallers(db: Db): TokenCallers {
  const watch = watchTables(db, callerTables)
  const kept = new Map<string, { readonly stamp: string; readonly caller: Caller }>()
  /** The key of the caller kept for each token hash (bounded with `kept`: a hash whose caller went reads nothing). */
  const keyByHash = new Map<string, string>()
  const tokens = (tables: Db) => tables.withTables<IdentityTables>().selectFrom('api_tokens').selectAll()
  const plainRow = preparedQuery<{ tokenHash: string }, ApiTokensTable>((on, p) =>
    tokens(on).where('token_hash', '=', p.tokenHash),
  )
  // The database's side of the stamp in the same statement as the token: one statement, one snapshot.
  const rowWithVersion =
    watch &&
    preparedQuery<{ tokenHash: string }, RowWithVersion>((on, p) =>
      tokens(on).select(watch.version.as('data_version')).where('token_hash', '=', p.tokenHash),
    )
  return {
    async read(tokenHash) {
      if (!watch || !rowWithVersion) return readOf(await plainRow(db, { tokenHash }), null)
      // Counted before the statement: a write between the two makes the stamp older, never newer.
      const writes = watch.writes()
      return readOf(await rowWithVersion(db, { tokenHash }), writes)
    },
    readNow(tokenHash) {
      if (!watch || !rowWithVersion) {
        const rows = plainRow.now(db, { tokenHash })
        return rows && readOf(rows, null)
      }
      const writes = watch.writes()
      const rows = rowWithVersion.now(db, { tokenHash })
      return rows && readOf(rows, writes)
    },
    get(row, stamp) {
      if (stamp === null) return undefined
      const entry = kept.get(keyOf(row))
      return entry?.stamp === stamp ? entry.caller : undefined
    },
    keep(row, stamp, caller) {
      if (stamp === null) return
      const key = keyOf(row)
      keepNewest(kept, key, { stamp, caller })
      keepNewest(keyByHash, row.token_hash, key)
    },
    peek(tokenHash) {
      const key = keyByHash.get(tokenHash)
      return key === undefined ? undefined : kept.get(key)?.caller
    },
  }
}
