// A site's effective backup policy: each member staff's for the site, else its plans', else the installation's
// default; and the target it backs up to.

import type { Db, Quotas } from '../../../core/index.ts'
import type { BackupPolicy } from '../contract.ts'
import type { BackupPoliciesTable } from '../migrations.ts'
import {
  backupPlanSetting,
  defaultBackupPolicy,
  type PlanBackups,
  type PolicyMember,
  planBackupsOf,
  policyMembers,
} from './backup-plan-setting.ts'

/** Where a member of the effective policy comes from. */
export const policySources = ['site', 'plan', 'default'] as const
export type PolicySource = (typeof policySources)[number]

/** A site's policy with where each member comes from. */
export interface EffectivePolicy {
  readonly policy: BackupPolicy
  readonly sources: Readonly<Record<PolicyMember, PolicySource>>
}

/** The column of each member in `backup_policies`. */
export const ownPolicyColumns = {
  schedule: 'schedule',
  keepDaily: 'keep_daily',
  keepWeekly: 'keep_weekly',
  keepMonthly: 'keep_monthly',
} as const satisfies Record<PolicyMember, keyof BackupPoliciesTable>

/** The policy from staff's row (`own`, when there is one) over the plans' combined setting over the default. */
export function effectivePolicy(
  own: BackupPoliciesTable | null | undefined,
  plan: PlanBackups,
): EffectivePolicy {
  const policy: Record<string, unknown> = {}
  const sources: Record<string, PolicySource> = {}
  for (const member of policyMembers) {
    const mine = own?.[ownPolicyColumns[member]] ?? null
    if (mine !== null) {
      policy[member] = mine
      sources[member] = 'site'
    } else if (plan[member] !== undefined) {
      policy[member] = plan[member]
      sources[member] = 'plan'
    } else {
      policy[member] = defaultBackupPolicy[member]
      sources[member] = 'default'
    }
  }
  return { policy: policy as BackupPolicy, sources: sources as EffectivePolicy['sources'] }
}

/** What the customer's plans set of `backups` (their combined setting), read through `db`. */
export async function planBackupsFor(
  db: Db,
  quotas: Pick<Quotas, 'settingsOf'>,
  customerId: string,
): Promise<PlanBackups> {
  const settings = await quotas.settingsOf(db, customerId)
  return planBackupsOf(settings[backupPlanSetting.name])
}

/** Reads plans' `backups` once per customer, for work over many sites (the schedule, the overdue list). */
export function planBackupsCache(db: Db, quotas: Pick<Quotas, 'settingsOf'>) {
  const read = new Map<string, Promise<PlanBackups>>()
  return (customerId: string): Promise<PlanBackups> => {
    let plan = read.get(customerId)
    if (!plan) {
      plan = planBackupsFor(db, quotas, customerId)
      read.set(customerId, plan)
    }
    return plan
  }
}
