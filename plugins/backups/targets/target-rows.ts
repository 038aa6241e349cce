// The backup_targets table read and written, the default target's place, what keeps a target, and a target as the
// API shows it (never a secret).

import type { Db } from '../../../core/index.ts'
import type { BackupTarget, TargetKind } from '../contract.ts'
import type { BackupTables, BackupTargetsTable } from '../migrations.ts'
import { fingerprintOf } from './ssh-keys.ts'
import { placeOf } from './target-record.ts'

const tables = (db: Db) => db.withTables<BackupTables>()

/** Every target, for the kernel's pages. */
export function targetsQuery(db: Db) {
  return tables(db).selectFrom('backup_targets').selectAll()
}

export function findTargetRow(db: Db, id: string): Promise<BackupTargetsTable | undefined> {
  return targetsQuery(db).where('id', '=', id).executeTakeFirst()
}

/** The target sites without their own back up to (there is one on every installation: the migration adds it). */
export function defaultTargetRow(db: Db): Promise<BackupTargetsTable | undefined> {
  return targetsQuery(db).where('is_default', '=', 1).executeTakeFirst()
}

export async function targetNameTaken(
  db: Db,
  name: string,
  exceptId: string | null = null,
): Promise<boolean> {
  let query = targetsQuery(db).where('name', '=', name)
  if (exceptId) query = query.where('id', '!=', exceptId)
  return (await query.executeTakeFirst()) !== undefined
}

export async function insertTarget(db: Db, row: BackupTargetsTable): Promise<void> {
  await tables(db).insertInto('backup_targets').values(row).execute()
}

export async function updateTarget(
  db: Db,
  id: string,
  changes: Partial<Omit<BackupTargetsTable, 'id' | 'kind' | 'created_at' | 'is_default'>>,
): Promise<void> {
  await tables(db).updateTable('backup_targets').set(changes).where('id', '=', id).execute()
}

/** Makes `id` the one default, in the caller's transaction: the former default stops being it in the same step. */
export async function makeDefault(db: Db, id: string, now: string): Promise<void> {
  await tables(db)
    .updateTable('backup_targets')
    .set({ is_default: 0, updated_at: now })
    .where('is_default', '=', 1)
    .where('id', '!=', id)
    .execute()
  await tables(db)
    .updateTable('backup_targets')
    .set({ is_default: 1, updated_at: now })
    .where('id', '=', id)
    .execute()
}

export async function deleteTarget(db: Db, id: string): Promise<void> {
  await tables(db).deleteFrom('backup_targets').where('id', '=', id).execute()
}

/** What keeps a target from being deleted: sites' repositories on it and sites' policies naming it. */
export async function targetUse(db: Db, id: string): Promise<{ name: string; count: number }[]> {
  const [repositories, policies] = await Promise.all([
    tables(db)
      .selectFrom('backup_repositories')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('target_id', '=', id)
      .executeTakeFirstOrThrow(),
    tables(db)
      .selectFrom('backup_policies')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('target_id', '=', id)
      .executeTakeFirstOrThrow(),
  ])
  return [
    { name: 'backup-repositories', count: Number(repositories.n) },
    { name: 'backup-policies', count: Number(policies.n) },
  ].filter((use) => use.count > 0)
}

/** The target as the API shows it: where it is, never a key, password or secret. */
export function toTarget(row: BackupTargetsTable): BackupTarget {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind as TargetKind,
    default: row.is_default === 1,
    pushOnly: row.prune_secrets_sealed !== null,
    location: shownLocation(row),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

function shownLocation(row: BackupTargetsTable): BackupTarget['location'] {
  const place = placeOf(row)
  switch (place.kind) {
    case 'local':
      return {}
    case 'sftp':
      return {
        host: place.host,
        port: place.port,
        username: place.username,
        path: place.path,
        hostKeyFingerprint: place.hostKeys
          .map((key) => `${fingerprintOf(key)} (${key.split(' ')[0]})`)
          .join(', '),
      }
    case 'rest':
      return { url: place.url, username: place.username }
    case 's3':
      return {
        endpoint: place.endpoint,
        bucket: place.bucket,
        prefix: place.prefix,
        region: place.region,
        accessKeyId: place.accessKeyId,
      }
  }
}
