// Writes audit entries inside the transaction of the change they record: both commit or neither does.

import { newId, nowIso } from '../ids/ids.ts'
import type { AuditInput } from '../plugin/route.ts'
import { preparedInsert } from '../store/prepared-query.ts'
import type { Trx } from '../store/store.ts'
import { brandOfCustomer } from '../tenancy/tenants.ts'
import type { AuditEntriesTable } from './audit-tables.ts'

/** Who did it and from where; null members for work the CLI or the system does. */
export interface AuditActor {
  readonly userId: string | null
  readonly tokenId: string | null
  readonly requestId: string | null
  readonly sourceAddress: string | null
}

const insertEntry = preparedInsert<AuditEntriesTable>('audit_entries', [
  'id',
  'occurred_at',
  'action',
  'actor_user_id',
  'actor_token_id',
  'subject_type',
  'subject_id',
  'customer_id',
  'brand_id',
  'request_id',
  'source_address',
  'details',
])

/**
 * What an audit action looks like: `<resource>.<verb>`, each part camelCase or with single underscores
 * (`site.create`, `database_user.rotate_password`).
 */
export const auditActionPattern =
  '^[a-z][a-zA-Z0-9]*(_[a-z0-9][a-zA-Z0-9]*)*\\.[a-z][a-zA-Z0-9]*(_[a-z0-9][a-zA-Z0-9]*)*$'
const actionPattern = new RegExp(auditActionPattern)

/**
 * Appends one entry to the audit log in `trx`. Its brand is the customer's (as the entry is written), or the one
 * the entry names for a record of a brand without a customer, so that brand's staff see it.
 */
export async function writeAudit(trx: Trx, actor: AuditActor, entry: AuditInput): Promise<void> {
  if (!actionPattern.test(entry.action))
    throw new Error(`Audit action "${entry.action}" must read <resource>.<verb>`)
  await insertEntry(trx, {
    id: newId('aud'),
    occurred_at: nowIso(),
    action: entry.action,
    actor_user_id: actor.userId,
    actor_token_id: actor.tokenId,
    subject_type: entry.subject.type,
    subject_id: entry.subject.id,
    customer_id: entry.customerId,
    brand_id:
      entry.customerId === null ? (entry.brandId ?? null) : await brandOfCustomer(trx, entry.customerId),
    request_id: actor.requestId,
    source_address: actor.sourceAddress,
    details: JSON.stringify(entry.details ?? {}),
  })
}
