// GET /audit: the audit log, newest first, filtered by actor, action, subject and time, within the caller's view.

import { Type as t } from '@sinclair/typebox'
import { defineRoute, type RouteDefinition } from '../plugin/route.ts'
import type { Store } from '../store/store.ts'
import { type TenantView, visibleTo } from '../tenancy/tenant-view.ts'
import { auditActionPattern } from './audit-log.ts'
import type { AuditEntriesTable, AuditTables } from './audit-tables.ts'

/** The scope of the audit log: a customer scope (owners and admins), and every staff member's. */
export const auditScopes = [
  { name: 'audit:read', description: 'The audit log', roles: ['owner', 'admin'] },
] as const

const AuditEntry = t.Object(
  {
    id: t.String({ description: 'Identifier, `aud_…`; time-ordered.' }),
    occurredAt: t.String({ format: 'date-time' }),
    action: t.String({
      description: '`<resource>.<verb>`: `customer.update`, `token.revoke`.',
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
    brandId: t.Union([t.String(), t.Null()], {
      description:
        'The brand the entry belongs to: the customer’s, or that of a brand’s own record (a plan, a webhook endpoint, a staff user); null for installation-wide changes.',
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
  actor: t.Optional(
    t.String({ pattern: '^(usr|tok)_[0-9A-HJKMNP-TV-Z]{26}$', description: 'A user or token id.' }),
  ),
  action: t.Optional(
    t.String({
      pattern: auditActionPattern,
      maxLength: 100,
      description: '`customer.create`.',
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

/** The entries `view` may see: platform staff all, brand staff their brand's, members their customers'. */
function visibleEntries(store: Store, view: TenantView) {
  const entries = store.db.withTables<AuditTables>().selectFrom('audit_entries').selectAll()
  if (view.kind === 'all') return entries
  if (view.kind === 'brand') return entries.where('audit_entries.brand_id', '=', view.brandId)
  return entries.where(visibleTo(view, 'audit_entries.customer_id'))
}

/** The API form of an entry. */
function toAuditEntry(row: AuditEntriesTable) {
  return {
    id: row.id,
    occurredAt: row.occurred_at,
    action: row.action,
    actor: { userId: row.actor_user_id, tokenId: row.actor_token_id },
    subject: { type: row.subject_type, id: row.subject_id },
    customerId: row.customer_id,
    brandId: row.brand_id,
    requestId: row.request_id,
    sourceAddress: row.source_address,
    details: JSON.parse(row.details) as Record<string, unknown>,
  }
}

/** The audit log operations. */
export function auditRoutes(store: Store): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/audit',
      operationId: 'listAuditEntries',
      summary: 'Read the audit log',
      description:
        'Every change, newest first. Platform staff see everything; brand staff the entries of their brand (its customers, and its own plans, endpoints and staff); team owners and admins those of their customers. Filters narrow the list.',
      scope: 'audit:read',
      query: AuditQuery,
      list: { item: AuditEntry, key: 'audit_entries.id', order: 'desc', toItem: toAuditEntry },
      handler({ query: filters, view }) {
        let log = visibleEntries(store, view)
        if (filters.actor?.startsWith('usr_')) log = log.where('actor_user_id', '=', filters.actor)
        if (filters.actor?.startsWith('tok_')) log = log.where('actor_token_id', '=', filters.actor)
        if (filters.action) log = log.where('action', '=', filters.action)
        if (filters.subject) log = log.where('subject_id', '=', filters.subject)
        if (filters.since) log = log.where('occurred_at', '>=', new Date(filters.since).toISOString())
        if (filters.until) log = log.where('occurred_at', '<', new Date(filters.until).toISOString())
        return log
      },
    }),
  ]
}
