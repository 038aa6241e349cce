// Backup policies: the plan setting `backups`, staff's policy for single sites, the schedule that takes sites'
// backups in the night window, retention after each backup, and staff's list of overdue sites. The backups plugin
// mounts these (plugins/backups/index.ts); docs/backups.md, "Policies and schedule".

import type { JobDefinition, PluginContext, RouteDefinition } from '../../../core/index.ts'
import { backupScopes } from '../contract.ts'
import type { ResolvedPolicyOptions } from './policy-options.ts'
import { retainAfterBackups, retentionJob } from './retention-job.ts'
import { overdueRoutes } from './routes/overdue-backups.ts'
import { sitePolicyRoutes } from './routes/site-backup-policy.ts'
import { scheduleJob, scheduleLooks } from './schedule-job.ts'

export { backupPlanSetting, defaultBackupPolicy } from './backup-plan-setting.ts'
export { policyMigrations } from './migrations.ts'
export { type PolicyOptions, type ResolvedPolicyOptions, resolvePolicyOptions } from './policy-options.ts'
export { policyProblems } from './problems.ts'
export { retainedBackups } from './retention.ts'

/** The scope policies declare: staff's, platform only (a site's own policy overrides what its plan sells). */
export const policyScopes = [
  {
    name: backupScopes.policyManage,
    description:
      'Set a site’s own backup policy and target over its plan’s, and list sites whose backups are overdue',
    staff: 'platform' as const,
  },
]

/** The policies' routes: a site's policy, and the overdue list. */
export function policyRoutes(context: PluginContext, options: ResolvedPolicyOptions): RouteDefinition[] {
  return [...sitePolicyRoutes(context, options), ...overdueRoutes(context, options)]
}

/**
 * The policies' jobs: the schedule's look, and retention, in `lane` (the backups' own: its forgets and prunes run
 * restic like backups do, and share their bound).
 */
export function policyJobs(
  context: PluginContext,
  options: ResolvedPolicyOptions,
  lane: JobDefinition['lane'],
): JobDefinition[] {
  return [scheduleJob(context, options), retentionJob(context, options, lane)]
}

/** In the plugin's setup: retention after each backup that ends. */
export function policySetup(context: PluginContext): void {
  retainAfterBackups(context)
}

/** In the plugin's start: the schedule's recurring look (unless its interval is 0). Answers how to stop. */
export function policyStart(
  context: PluginContext,
  options: ResolvedPolicyOptions,
): (() => void) | undefined {
  return options.scheduleIntervalMs > 0 ? scheduleLooks(context, options) : undefined
}
