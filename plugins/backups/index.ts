// The backups plugin: sites' backups with restic (files, databases, the site's record), taken and checked on the
// site's node into a repository of the site's own on a target staff choose, restored in part or whole into the site
// or a clone, downloaded as an archive; targets and policies (schedule, retention) for staff. docs/backups.md.

import { definePlugin } from '../../core/index.ts'
import { addConsolePages } from '../console/contract.ts'
import { customerDependents } from '../customers/contract.ts'
import { nodeModules } from '../nodes/contract.ts'
import { siteDependents } from '../sites/contract.ts'
import {
  Backup,
  backupScopes,
  restoreAdapters,
  scheduleKinds,
  siteCopies,
  siteRecordParts,
  targetKinds,
} from './contract.ts'
import { backupMigrations } from './migrations.ts'
import backupsNodeModule from './node/index.ts'
import type { VerifyPlan } from './node/protocol.ts'
import {
  backupPlanSetting,
  type PolicyOptions,
  policyJobs,
  policyMigrations,
  policyProblems,
  policyRoutes,
  policyScopes,
  policySetup,
  policyStart,
  resolvePolicyOptions,
} from './policies/index.ts'
import { backupsProblems } from './problems.ts'
import { backupTables } from './repository.ts'
import { RestoredBackup, restoreJob } from './restore-job.ts'
import { backupRoutes } from './routes/backups.ts'
import { downloadRoutes } from './routes/downloads.ts'
import { restoreRoutes } from './routes/restores.ts'
import { siteCopiesService } from './site-copies.ts'
import { purgeJob, removeSiteBackups } from './site-removal.ts'
import { backupTaker, defaultVerifyPlan } from './take-backup.ts'
import { backupsLane, takeJob } from './take-job.ts'
import { targetMigrations, targetProblems, targetRoutes } from './targets/index.ts'

/** Who holds the backup scopes on a customer: its hosting is the developers' work too. */
const hostingRoles = ['owner', 'admin', 'developer'] as const

/** Options of {@link backupsPlugin}. */
export interface BackupsOptions {
  /**
   * Backups and restores run at once on each panel instance, in a lane of their own (they take minutes, and must
   * never hold the workers provisioning and suspensions need). Default 4.
   */
  readonly concurrency?: number
  /**
   * How much of each backup is checked after it is taken: the percent of the repository's data restic's check reads
   * back, and the files restored to compare by checksum. Default 10 % and 25 files.
   */
  readonly verify?: VerifyPlan
  /** The schedule's night window, how many backups run at once on a node, the overdue grace (policies/). */
  readonly policies?: PolicyOptions
}

/** Backups of sites (`backup:read`, `backup:manage`), their targets and policies. */
export const backupsPlugin = (options: BackupsOptions = {}) => {
  const concurrency = options.concurrency ?? 4
  const verify = options.verify ?? defaultVerifyPlan
  const policies = resolvePolicyOptions(options.policies)
  return definePlugin({
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
      {
        name: backupScopes.targetRead,
        description: 'Read backup targets (platform staff only)',
        staff: 'platform',
      },
      {
        name: backupScopes.targetManage,
        description: 'Add, change and delete backup targets (platform staff only)',
        staff: 'platform',
      },
      // Staff's: a site's own policy, the overdue list.
      ...policyScopes,
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
        payload: RestoredBackup,
      },
    ],
    problems: { ...backupsProblems, ...targetProblems, ...policyProblems },
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
    // What a plan gives its sites of scheduled backups and retention (`backups`).
    planSettings: [backupPlanSetting],
    migrations: [...backupMigrations, ...targetMigrations, ...policyMigrations],
    extensionPoints: [restoreAdapters, siteRecordParts],
    setup(context) {
      // Its console pages: a site's backups and restores; targets and overdue sites for staff.
      addConsolePages(context, import.meta.dir)
      // Copies of one site into another through a fresh backup (staging copies and their push to live).
      let take: ReturnType<typeof backupTaker> | undefined
      context.provide(
        siteCopies,
        siteCopiesService(context, () => {
          take ??= backupTaker(context, verify)
          return take
        }),
      )
      // The local node runs the `backups` service in process; agents load the same module.
      context.extensionPoint(nodeModules).add({ module: backupsNodeModule })
      // A site's backups go with it (site-removal.ts): rows at once, remote repositories emptied by a job.
      context.extensionPoint(siteDependents).add({
        name: 'backups',
        remove: (run, site) => removeSiteBackups(context, run, site.id),
      })
      // Retention after each backup that ends (policies/).
      policySetup(context)
      // A customer's sites are deleted each through their own job; whatever of theirs is left here goes too.
      context.extensionPoint(customerDependents).add({
        name: 'backups',
        async remove(run, customer) {
          const sites = await backupTables(context.db)
            .selectFrom('backup_repositories')
            .select('site_id')
            .where('customer_id', '=', customer.id)
            .union(
              backupTables(context.db)
                .selectFrom('backups')
                .select('site_id')
                .where('customer_id', '=', customer.id),
            )
            .execute()
          for (const { site_id } of sites) await removeSiteBackups(context, run, site_id)
        },
      })
    },
    jobs(context) {
      const take = backupTaker(context, verify)
      return [
        takeJob(context, concurrency, verify),
        restoreJob(context, concurrency, take),
        purgeJob(context),
        ...policyJobs(context, policies, { name: backupsLane, concurrency }),
      ]
    },
    routes: (context) => [
      ...backupRoutes(context),
      ...restoreRoutes(context),
      ...downloadRoutes(context),
      ...targetRoutes(context),
      ...policyRoutes(context, policies),
    ],
    // What a client needs to offer backups: where they may go, which sites a restore can clone, when the schedule
    // runs them and how each is checked.
    capabilities: (context) => ({
      targetKinds: [...targetKinds],
      schedules: [...scheduleKinds],
      cloneableSiteTypes: context
        .extensionPoint(restoreAdapters)
        .list()
        .map((adapter) => adapter.type),
      scheduleWindow: { ...policies.scheduleWindow },
      backupsPerNode: policies.backupsPerNode,
      verify: { readDataPercent: verify.readDataPercent, sampleFiles: verify.sampleFiles },
    }),
    start: (context) => policyStart(context, policies),
  })
}
