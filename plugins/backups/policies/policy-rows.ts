// Reads and writes of `backup_policies` (staff's policy for single sites) and of what the policies read of the
// plugin's other tables: targets, and a site's backups by reason and status.

import type { Db } from '../../../core/index.ts'
import type { BackupPoliciesTable, BackupTables, BackupTargetsTable } from '../migrations.ts'

const tables = (db: Db) => db.withTables<BackupTables>()

/** Staff's policy for the site, or null when it takes its plan's whole. */
export function findOwnPolicy(db: Db, siteId: string): Promise<BackupPoliciesTable | undefined> {
  return tables(db).selectFrom('backup_policies').selectAll().where('site_id', '=', siteId).executeTakeFirst()
}

/** Staff's policies of several sites, by site. */
export async function ownPoliciesOf(
  db: Db,
  siteIds: readonly string[],
): Promise<Map<string, BackupPoliciesTable>> {
  if (siteIds.length === 0) return new Map()
  const rows = await tables(db)
    .selectFrom('backup_policies')
    .selectAll()
    .where('site_id', 'in', [...siteIds])
    .execute()
  return new Map(rows.map((row) => [row.site_id, row]))
}

/** Writes staff's policy for a site (replacing what it had). */
export async function saveOwnPolicy(db: Db, row: BackupPoliciesTable): Promise<void> {
  const { site_id: _, ...rest } = row
  await tables(db)
    .insertInto('backup_policies')
    .values(row)
    .onConflict((oc) => oc.column('site_id').doUpdateSet(rest))
    .execute()
}

/** Removes staff's policy for a site; answers whether it had one. */
export async function removeOwnPolicy(db: Db, siteId: string): Promise<boolean> {
  const result = await tables(db)
    .deleteFrom('backup_policies')
    .where('site_id', '=', siteId)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/** A target by id. */
export function findTarget(db: Db, id: string): Promise<BackupTargetsTable | undefined> {
  return tables(db).selectFrom('backup_targets').selectAll().where('id', '=', id).executeTakeFirst()
}

/** The target sites without one of their own back up to, if staff named one. */
export function findDefaultTarget(db: Db): Promise<BackupTargetsTable | undefined> {
  return tables(db).selectFrom('backup_targets').selectAll().where('is_default', '=', 1).executeTakeFirst()
}

/** What the schedule and the overdue list read of a site's backups. */
export interface BackupStanding {
  /** When its last `completed` backup (still listed) finished. */
  readonly lastGoodAt: string | null
  /** Its last failed backup, whatever its reason. */
  readonly lastFailure: { readonly code: string; readonly message: string; readonly at: string } | null
}

/** The standing of several sites' backups, by site (a site without backups is absent). */
export async function backupStandings(
  db: Db,
  siteIds: readonly string[],
): Promise<Map<string, BackupStanding>> {
  const standings = new Map<string, BackupStanding>()
  if (siteIds.length === 0) return standings
  const good = await tables(db)
    .selectFrom('backups')
    .select(['site_id', (eb) => eb.fn.max('finished_at').as('at')])
    .where('site_id', 'in', [...siteIds])
    .where('status', '=', 'completed')
    .where('forgotten_at', 'is', null)
    .groupBy('site_id')
    .execute()
  const failed = await tables(db)
    .selectFrom('backups')
    .select(['site_id', (eb) => eb.fn.max('id').as('id')])
    .where('site_id', 'in', [...siteIds])
    .where('status', '=', 'failed')
    .groupBy('site_id')
    .execute()
  const failures = await failedBackupsById(
    db,
    failed.map((row) => String(row.id)),
  )
  for (const id of siteIds) {
    const at = good.find((row) => row.site_id === id)?.at ?? null
    const failure = failures.get(failed.find((row) => row.site_id === id)?.id ?? '') ?? null
    if (at !== null || failure !== null)
      standings.set(id, { lastGoodAt: at === null ? null : String(at), lastFailure: failure })
  }
  return standings
}

/** Failed backups' reasons, by backup id. */
async function failedBackupsById(
  db: Db,
  ids: readonly string[],
): Promise<Map<string, NonNullable<BackupStanding['lastFailure']>>> {
  if (ids.length === 0) return new Map()
  const rows = await tables(db)
    .selectFrom('backups')
    .select(['id', 'error_code', 'error_message', 'finished_at', 'created_at'])
    .where('id', 'in', [...ids])
    .execute()
  return new Map(
    rows.map((row) => [
      row.id,
      {
        code: row.error_code ?? 'failed',
        message: row.error_message ?? '',
        at: row.finished_at ?? row.created_at,
      },
    ]),
  )
}

/** A scheduled backup as the schedule weighs a slot: whether it ran, and when. */
export interface ScheduledAttempt {
  readonly status: string
  readonly createdAt: string
  readonly finishedAt: string | null
}

/** The scheduled backups of several sites created at or after `since`, by site. */
export async function scheduledAttemptsSince(
  db: Db,
  siteIds: readonly string[],
  since: string,
): Promise<Map<string, ScheduledAttempt[]>> {
  const attempts = new Map<string, ScheduledAttempt[]>()
  if (siteIds.length === 0) return attempts
  const rows = await tables(db)
    .selectFrom('backups')
    .select(['site_id', 'status', 'created_at', 'finished_at'])
    .where('site_id', 'in', [...siteIds])
    .where('reason', '=', 'scheduled')
    .where('created_at', '>=', since)
    .orderBy('id')
    .execute()
  for (const row of rows) {
    const list = attempts.get(row.site_id) ?? []
    list.push({ status: row.status, createdAt: row.created_at, finishedAt: row.finished_at })
    attempts.set(row.site_id, list)
  }
  return attempts
}

/** How many backups run on each node now (whatever their reason). */
export async function runningBackupsByNode(db: Db): Promise<Map<string, number>> {
  const rows = await tables(db)
    .selectFrom('backups')
    .select(['node_id', (eb) => eb.fn.countAll().as('count')])
    .where('status', '=', 'running')
    .groupBy('node_id')
    .execute()
  return new Map(
    rows.filter((row) => row.node_id !== null).map((row) => [String(row.node_id), Number(row.count)]),
  )
}

/** A site's backups as retention weighs them (those still listed). */
export function listedBackupsOf(db: Db, siteId: string) {
  return tables(db)
    .selectFrom('backups')
    .select(['id', 'status', 'reason', 'created_at', 'finished_at'])
    .where('site_id', '=', siteId)
    .where('forgotten_at', 'is', null)
    .orderBy('id')
    .execute()
}
