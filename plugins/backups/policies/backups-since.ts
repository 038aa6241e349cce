// When the installation started backing sites up: the first target's creation (a fresh installation's migration
// makes the default one). A site's slots before it are not the site's, as slots before the site's own creation are
// not: an upgrade does not start every existing site's backup in the afternoon it is installed, nor list every site
// as overdue; each gets its first backup in its own slot of the night.

import { type Db, sql } from '../../../core/index.ts'
import type { BackupTables } from '../migrations.ts'

/** The first target's creation time (ISO), or null when there is none. */
export async function backupsSince(db: Db): Promise<string | null> {
  const row = await db
    .withTables<BackupTables>()
    .selectFrom('backup_targets')
    .select(sql<string | null>`min(created_at)`.as('since'))
    .executeTakeFirst()
  return row?.since ?? null
}

/** The time a site's schedule counts from: its creation, or the installation's first backups when later. */
export function scheduleStart(siteCreatedAt: string, since: string | null): string {
  return since !== null && Date.parse(since) > Date.parse(siteCreatedAt) ? since : siteCreatedAt
}
