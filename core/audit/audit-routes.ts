// GET /audit: the audit log, newest first, filtered by actor, action, subject and time, within the caller's view.

import { Type as t } from '@sinclair/typebox'
import type { Kysely } from 'kysely'
import type { KernelTables } from '../identity/tables.ts'
import { pageOf, pageQuery } from '../pagination/paginate.ts'
import { defineRoute, type RouteDefinition } from '../plugin/route.ts'
import type { Store } from '../store/store.ts'
import { visibleTo } from '../tenancy/tenant-view.ts'

/** The scope of the audit log: a customer scope (owners and admins), and every staff member's. */
export const auditScopes = [{ name: 'audit:read', description: 'The audit log' }] as const

const AuditEntry = t.Object(
  {
    id: t.String({ description: 'Identifier, `aud_…`; time-ordered.' }),
    occurredAt: t.String({ format: 'date-time' }),
    action: t.String({
      description: '`<resource>.<verb>`: `site.create`, `customer.update`, `token.revoke`.',
    }),
    actor: t.Object({
      userId: t.Union([t.String(), t.Null()], { description: 'The user who did it; null for the system.' }),
      tokenId: t.Union([t.String(), t.Null()], {
        description: 'The token used; null for a session or the CLI.',
      }),
    }),
    subject: t.Object({ type: t.String(), id: t.String() }),
    customerId: t.Union([t.String(), t.Null()], {
      description: 'The customer concerned; null for staff-level changes.',
    }),
    requestId: t.Union([t.String(), t.Null()]),
    sourceAddress: t.Union([t.String(), t.Null()], {
      description: 'The client address, `cli`, or null when unknown.',
    }),
    details: t.Record(t.String(), t.Unknown(), { description: 'What changed (never secrets).' }),
  },
  { $id: 'AuditEntry' },
)

const AuditQuery = t.Object({
  ...pageQuery,
  actor: t.Optional(
    t.String({ pattern: '^(usr|tok)_[0-9A-HJKMNP-TV-Z]{26}$', description: 'A user or token id.' }),
  ),
  action: t.Optional(
    t.String({
      pattern: '^[a-z][a-zA-Z0-9]*\\.[a-z][a-zA-Z0-9]*$',
      maxLength: 100,
      description: '`site.create`.',
    }),
  ),
  subject: t.Optional(
    t.String({ minLength: 1, maxLength: 64, description: 'The id of the resource changed.' }),
  ),
  since: t.Optional(
    t.String({
      format: 'date-time',
      pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T',
      maxLength: 64,
      description: 'From this time (inclusive).',
    }),
  ),
  until: t.Optional(
    t.String({
      format: 'date-time',
      pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T',
      maxLength: 64,
      description: 'Before this time (exclusive).',
    }),
  ),
})

/** The audit log operations. */
export function auditRoutes(store: Store): RouteDefinition[] {
  const entries = () =>
    (store.db.withTables<KernelTables>() as Kysely<KernelTables>).selectFrom('audit_entries').selectAll()
  return [
    defineRoute({
      method: 'GET',
      path: '/audit',
      operationId: 'listAuditEntries',
      summary: 'Read the audit log',
      description:
        'Every change, newest first. Platform staff see everything; brand staff and team owners/admins see the entries of their customers. Filters narrow the list.',
      scope: 'audit:read',
      query: AuditQuery,
      responses: { 200: { description: 'A page of entries.', schema: pageOf(AuditEntry, 'AuditEntryPage') } },
      async handler({ query, view, page }) {
        const { cursor: _cursor, limit: _limit, ...filters } = query
        let log = entries().where(visibleTo(view, 'audit_entries.customer_id'))
        if (filters.actor?.startsWith('usr_')) log = log.where('actor_user_id', '=', filters.actor)
        if (filters.actor?.startsWith('tok_')) log = log.where('actor_token_id', '=', filters.actor)
        if (filters.action) log = log.where('action', '=', filters.action)
        if (filters.subject) log = log.where('subject_id', '=', filters.subject)
        if (filters.since) log = log.where('occurred_at', '>=', new Date(filters.since).toISOString())
        if (filters.until) log = log.where('occurred_at', '<', new Date(filters.until).toISOString())
        const { rows, nextCursor } = await page(log, {
          keyColumn: 'audit_entries.id',
          keyOf: (row) => row.id,
          order: 'desc',
          filters,
        })
        return {
          items: rows.map((row) => ({
            id: row.id,
            occurredAt: row.occurred_at,
            action: row.action,
            actor: { userId: row.actor_user_id, tokenId: row.actor_token_id },
            subject: { type: row.subject_type, id: row.subject_id },
            customerId: row.customer_id,
            requestId: row.request_id,
            sourceAddress: row.source_address,
            details: JSON.parse(row.details) as Record<string, unknown>,
          })),
          nextCursor,
        }
      },
    }),
  ]
}
