// The backups plugin: sites' backups with restic (files, databases, the site's record), taken and checked on the
// site's node into a repository of the site's own on a target staff choose, restored in part or whole into the site
// or a clone, downloaded as an archive; targets and policies (schedule, retention) for staff. docs/backups.md.

import { definePlugin } from '../../core/index.ts'
import { Backup, backupScopes, restoreAdapters } from './contract.ts'
import { backupMigrations } from './migrations.ts'
import { backupsProblems } from './problems.ts'

/** Who holds the backup scopes on a customer: its hosting is the developers' work too. */
const hostingRoles = ['owner', 'admin', 'developer'] as const

/** Options of {@link backupsPlugin}. */
export interface BackupsOptions {
  /**
   * Backups and restores run at once on each panel instance, in a lane of their own (they take minutes, and must
   * never hold the workers provisioning and suspensions need). Default 4.
   */
  readonly concurrency?: number
}

/** Backups of sites (`backup:read`, `backup:manage`), their targets and policies. */
export const backupsPlugin = (_options: BackupsOptions = {}) =>
  definePlugin({
    name: 'backups',
    version: '0.1.0',
    description:
      'Backups of sites with restic: files, databases and the site’s record, verified, restored in part, whole or into a clone.',
    requires: ['customers', 'sites', 'nodes', 'databases'],
    // Its console pages, when the installation has a console.
    enhances: ['console'],
    scopes: [
      {
        name: backupScopes.read,
        description: 'Read sites’ backups and their policy',
        roles: hostingRoles,
      },
      {
        name: backupScopes.manage,
        description: 'Take, restore and download sites’ backups',
        roles: hostingRoles,
      },
    ],
    events: [
      {
        kind: 'backup.completed',
        description:
          'A backup was taken and passed every check (restic’s check, the test restore of every database dump, the sampled files): it is `completed` and `verified`.',
        payload: Backup,
      },
      {
        kind: 'backup.failed',
        description:
          'A backup failed (taking it or one of its checks): `error` says why, with a stable code.',
        payload: Backup,
      },
      {
        kind: 'backup.restored',
        description:
          'A backup was restored into its site or into a clone: the data is the backup restored, with `restore` saying what and where, and `preRestoreBackupId` the backup that undoes it.',
        payload: Backup,
      },
    ],
    problems: backupsProblems,
    usage: [
      {
        name: 'backupMB',
        description: 'Storage the customer’s sites’ backup repositories take on their targets, in MB.',
        quota: {
          description:
            'Backup storage, in MB, the customer’s sites’ repositories may take in total: past it, no new backup is taken.',
          problem: backupsProblems.backup_limit_reached,
        },
      },
    ],
    migrations: backupMigrations,
    extensionPoints: [restoreAdapters],
  })
