// The ceiling: a bare Bun.serve doing what GET /api/v1/sites must do (token lookup, keyset query, JSON) and nothing else.
// It answers the same JSON as the panel, signed cursor included (CEILING_CURSOR=plain: the last id as the cursor, as
// the first benchmarks had it), and reads the same `cursor` parameter. `bench/profile.ts` times its handler in process.

import { Database } from 'bun:sqlite'
import { decodeCursor, encodeCursor } from '../core/pagination/cursor.ts'
import type { SitesTable } from '../plugins/sites/migrations.ts'
import { toSite } from '../plugins/sites/repository.ts'

/** The ceiling's request handler on the store in `dataDir`, signing cursors with `secret` unless `plainCursors`. */
export function ceilingHandler(options: {
  readonly dataDir: string
  readonly secret: string
  readonly plainCursors?: boolean
}): (request: Request) => Response {
  const { secret, plainCursors = false } = options
  const database = new Database(`${options.dataDir}/plinth.sqlite`, { readonly: true })
  const tokenQuery = database.query(
    'SELECT id, user_id, customer_id, expires_at, revoked_at FROM api_tokens WHERE token_hash = ?',
  )
  const firstPage = database.query('SELECT * FROM sites WHERE customer_id = ? ORDER BY id LIMIT ?')
  const nextPage = database.query('SELECT * FROM sites WHERE customer_id = ? AND id > ? ORDER BY id LIMIT ?')

  return (request) => {
    const token = request.headers.get('authorization')?.slice(7) ?? ''
    // The same one-shot native hash the panel uses for token lookups.
    const hash = Bun.SHA256.hash(token, 'hex')
    const row = tokenQuery.get(hash) as {
      id: string
      user_id: string
      customer_id: string
      expires_at: string
      revoked_at: string | null
    } | null
    // Revoked and expired tokens are refused, as the panel does; the user exists while its tokens do (FK cascade),
    // and the panel, too, reads only the token row when its caller is kept.
    if (!row || row.revoked_at !== null || row.expires_at <= new Date().toISOString())
      return new Response('unauthorised', { status: 401 })
    // Parsed only when there is a query, as the panel does.
    const query = request.url.includes('?') ? new URL(request.url).searchParams : null
    const limit = Number(query?.get('limit') ?? 20)
    // What the panel binds a cursor of this list to: operation, user, token, path parameters, filters.
    const binding = `listSites|${row.user_id}|${row.id}|{}|{}`
    const cursor = query?.get('cursor') ?? null
    const after = cursor === null || plainCursors ? cursor : decodeCursor(cursor, binding, secret)
    if (cursor !== null && after === null) return new Response('invalid cursor', { status: 400 })
    const rows = (
      after ? nextPage.all(row.customer_id, after, limit + 1) : firstPage.all(row.customer_id, limit + 1)
    ) as SitesTable[]
    // The same rendering as the sites plugin's, so both answers are the same JSON.
    const items = rows.slice(0, limit).map(toSite)
    const last = items.at(-1)
    const next = rows.length > limit && last ? last.id : null
    return Response.json({
      items,
      nextCursor: next === null || plainCursors ? next : encodeCursor(next, binding, secret),
    })
  }
}

if (import.meta.main) {
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: ceilingHandler({
      dataDir: process.env.DATA_DIR ?? '.',
      secret: process.env.PLINTH_SECRET ?? '',
      plainCursors: process.env.CEILING_CURSOR === 'plain',
    }),
  })
  console.log(`ceiling listening on ${server.url.href.replace(/\/$/, '')}`)
}
