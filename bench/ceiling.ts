// The ceiling: a bare Bun.serve doing what GET /api/v1/sites must do (token lookup, keyset query, JSON) and nothing else.

import { Database } from 'bun:sqlite'
import type { SitesTable } from '../plugins/sites/migrations.ts'
import { toSite } from '../plugins/sites/repository.ts'

const database = new Database(`${process.env.DATA_DIR}/plinth.sqlite`, { readonly: true })
const tokenQuery = database.query(
  'SELECT user_id, customer_id, expires_at, revoked_at FROM api_tokens WHERE token_hash = ?',
)
const userQuery = database.query('SELECT id FROM users WHERE id = ?')
const firstPage = database.query('SELECT * FROM sites WHERE customer_id = ? ORDER BY id LIMIT ?')
const nextPage = database.query('SELECT * FROM sites WHERE customer_id = ? AND id > ? ORDER BY id LIMIT ?')

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch(request) {
    const token = request.headers.get('authorization')?.slice(7) ?? ''
    // The same one-shot native hash the panel uses for token lookups.
    const hash = Bun.SHA256.hash(token, 'hex')
    const row = tokenQuery.get(hash) as { user_id: string; customer_id: string } | null
    if (!row || !userQuery.get(row.user_id)) return new Response('unauthorised', { status: 401 })
    const url = new URL(request.url)
    const limit = Number(url.searchParams.get('limit') ?? 20)
    const after = url.searchParams.get('after')
    const rows = (
      after ? nextPage.all(row.customer_id, after, limit + 1) : firstPage.all(row.customer_id, limit + 1)
    ) as SitesTable[]
    // The same rendering as the sites plugin's, so both answers are the same JSON.
    const items = rows.slice(0, limit).map(toSite)
    return Response.json({ items, nextCursor: rows.length > limit ? (items.at(-1)?.id ?? null) : null })
  },
})
console.log(`ceiling listening on ${server.url.href.replace(/\/$/, '')}`)
