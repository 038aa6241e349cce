// The target a fresh installation backs up to without any step: each site's own node (`local`), the default until
// staff add an offsite target and make it the default.

import { type Migration, newId, nowIso } from '../../../core/index.ts'
import type { BackupTargetsTable } from '../migrations.ts'

/** The default target's name. */
export const defaultTargetName = 'Each site’s node'

/** The targets' migrations, after the plugin's `0001_backups`: the default local target. */
export const targetMigrations: Migration[] = [
  {
    id: '0002_default_target',
    async up(db) {
      const now = nowIso()
      await db
        .withTables<{ backup_targets: BackupTargetsTable }>()
        .insertInto('backup_targets')
        .values({
          id: newId('bkt'),
          name: defaultTargetName,
          kind: 'local',
          location_json: '{}',
          push_secrets_sealed: null,
          prune_secrets_sealed: null,
          is_default: 1,
          created_at: now,
          updated_at: now,
        })
        .execute()
    },
  },
]
