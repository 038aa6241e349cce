// The policies' table: when the schedule last looked, so several panel instances sharing a store start it once.

import type { Db, Migration } from '../../../core/index.ts'

/** One row per recurring look (`schedule`, the daily `retention` sweep): when it is next due. */
export interface BackupScheduleClaimsTable {
  id: string
  next_at: string
}

export type PolicyTables = { backup_schedule_claims: BackupScheduleClaimsTable }

/** The policies' migrations (after the plugin's own). */
export const policyMigrations: Migration[] = [
  {
    id: '0003_backup_schedule_claims',
    async up(db) {
      await db.schema
        .createTable('backup_schedule_claims')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('next_at', 'text', (c) => c.notNull())
        .execute()
    },
  },
]

/**
 * Whether this instance does the recurring look `id` now: true when it was due and this call moved it on by
 * `intervalMs` (only one instance's update matches). The first look only records when the next is due.
 */
export async function claimScheduleLook(
  db: Db,
  intervalMs: number,
  now: Date,
  id: 'schedule' | 'retention' = 'schedule',
): Promise<boolean> {
  const claims = db.withTables<PolicyTables>()
  const next = new Date(now.getTime() + intervalMs).toISOString()
  const existing = await claims
    .selectFrom('backup_schedule_claims')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst()
  if (!existing) {
    await claims
      .insertInto('backup_schedule_claims')
      .values({ id, next_at: next })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute()
    return false
  }
  if (existing.next_at > now.toISOString()) return false
  const result = await claims
    .updateTable('backup_schedule_claims')
    .set({ next_at: next })
    .where('id', '=', id)
    .where('next_at', '=', existing.next_at)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}
