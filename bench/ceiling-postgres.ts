// The ceiling on PostgreSQL: what bench/ceiling.ts does on SQLite (token lookup, keyset query, the panel's JSON with
// its signed cursor, nothing else) in a bare Bun.serve, through postgres.js with prepared statements and a pool the
// size of a panel instance's (DATABASE_POOL_SIZE, default 10). `DATABASE_URL` names the bench database.

import postgres from 'postgres'
import { decodeCursor, encodeCursor } from '../core/pagination/cursor.ts'
import { int8AsNumber } from '../core/store/postgres-store.ts'
import type { SitesTable } from '../plugins/sites/migrations.ts'
import { toSite } from '../plugins/sites/repository.ts'

interface TokenRow {
  id: string
  user_id: string
  customer_id: string
  expires_at: string
  revoked_at: string | null
}

/** The ceiling's request handler on the database at `url`, signing cursors with `secret`. */
export function postgresCeilingHandler(options: {
  readonly url: string
  readonly secret: string
  readonly poolSize?: number
}): (request: Request) => Promise<Response> {
  const { secret } = options
  const sql = postgres(options.url, {
    max: options.poolSize ?? 10,
    // 64-bit integers as numbers, as the panel's store reads them (toSite compares `suspended_by_staff` with 1).
    types: int8AsNumber,
    onnotice: () => {},
  })

  return async (request) => {
    const token = request.headers.get('authorization')?.slice(7) ?? ''
    // The same one-shot native hash the panel uses for token lookups.
    const hash = Bun.SHA256.hash(token, 'hex')
    const [row] = await sql<TokenRow[]>`select id, user_id, customer_id, expires_at, revoked_at
      from api_tokens where token_hash = ${hash}`
    // Revoked and expired tokens are refused, as the panel does; the panel, too, reads only the token row (with the
    // version of the tables its kept caller depends on) when its caller is kept.
    if (!row || row.revoked_at !== null || row.expires_at <= new Date().toISOString())
      return new Response('unauthorised', { status: 401 })
    const query = request.url.includes('?') ? new URL(request.url).searchParams : null
    const limit = Number(query?.get('limit') ?? 20)
    // What the panel binds a cursor of this list to: operation, user, token, path parameters, filters.
    const binding = `listSites|${row.user_id}|${row.id}|{}|{}`
    const cursor = query?.get('cursor') ?? null
    const after = cursor === null ? null : decodeCursor(cursor, binding, secret)
    if (cursor !== null && after === null) return new Response('invalid cursor', { status: 400 })
    const rows = after
      ? await sql<SitesTable[]>`select * from sites where customer_id = ${row.customer_id} and id > ${after}
          order by id limit ${limit + 1}`
      : await sql<SitesTable[]>`select * from sites where customer_id = ${row.customer_id} order by id
          limit ${limit + 1}`
    // The same rendering as the sites plugin's, so both answers are the same JSON.
    const items = rows.slice(0, limit).map(toSite)
    const last = items.at(-1)
    const next = rows.length > limit && last ? last.id : null
    return Response.json({ items, nextCursor: next === null ? null : encodeCursor(next, binding, secret) })
  }
}

if (import.meta.main) {
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: postgresCeilingHandler({
      url: process.env.DATABASE_URL ?? '',
      secret: process.env.PLINTH_SECRET ?? '',
      poolSize: Number(process.env.DATABASE_POOL_SIZE ?? 10),
    }),
  })
  console.log(`ceiling listening on ${server.url.href.replace(/\/$/, '')}`)
}
