// A site's backup policy: `GET /sites/{id}/backup-policy` for whoever reads its backups, and staff's own policy for
// the site over its plan's (`PUT`, `DELETE`).

import {
  defineRoute,
  enumOf,
  fieldProblem,
  nowIso,
  orNotFound,
  type PluginContext,
  type RouteDefinition,
  recorded,
  t,
  unchanged,
} from '../../../../core/index.ts'
import { siteDirectory } from '../../../sites/contract.ts'
import { BackupPolicy, backupScopes, scheduleKinds } from '../../contract.ts'
import type { BackupPoliciesTable } from '../../migrations.ts'
import type { ResolvedPolicyOptions } from '../policy-options.ts'
import { findOwnPolicy, findTarget, removeOwnPolicy, saveOwnPolicy } from '../policy-rows.ts'
import { policyProblems } from '../problems.ts'
import { SiteBackupPolicy, siteBackupPolicy, toOwnPolicy } from '../site-policy-answer.ts'

/** `PUT`'s body: the site's whole own policy; a member null or left out takes the plan's. */
const OwnBackupPolicyBody = t.Object(
  {
    schedule: t.Optional(
      t.Union([enumOf(scheduleKinds), t.Null()], {
        description: '`daily`, `weekly`, `off`; null: the plan’s.',
      }),
    ),
    keepDaily: t.Optional(t.Union([BackupPolicy.properties.keepDaily, t.Null()])),
    keepWeekly: t.Optional(t.Union([BackupPolicy.properties.keepWeekly, t.Null()])),
    keepMonthly: t.Optional(t.Union([BackupPolicy.properties.keepMonthly, t.Null()])),
    targetId: t.Optional(
      t.Union([t.String({ minLength: 1, maxLength: 64 }), t.Null()], {
        description:
          'A target (`bkt_…`) the site backs up to instead of the default; null: the default target.',
      }),
    ),
  },
  { $id: 'OwnBackupPolicyBody' },
)

const SiteParams = { id: 'site' } as const

/** A site's policy is the site's: changes are audited on the site. */
const onTheSite = (action: string) => ({
  action,
  subject: (answer: Readonly<Record<string, unknown>>) => ({ type: 'site', id: String(answer.siteId) }),
})

/** The routes under `/sites/{id}/backup-policy`. */
export function sitePolicyRoutes(context: PluginContext, options: ResolvedPolicyOptions): RouteDefinition[] {
  const sites = context.use(siteDirectory)

  return [
    defineRoute({
      method: 'GET',
      path: '/sites/:id/backup-policy',
      operationId: 'getSiteBackupPolicy',
      summary: 'Read a site’s backup policy',
      description:
        'The policy the site is backed up and its backups kept by, each member with where it comes from (staff’s own for the site, else its customer’s plans’ `backups`, else the installation’s default: daily, keep 7 daily, 4 weekly, 3 monthly); the target its backups go to; when its last good backup finished, when its next scheduled one is due, and whether it is overdue.',
      scope: backupScopes.read,
      params: SiteParams,
      responses: { 200: { description: 'The site’s backup policy.', schema: SiteBackupPolicy } },
      async handler({ db, params, view }) {
        const site = orNotFound(await sites.find(db, view, params.id))
        return siteBackupPolicy(db, context.quotas, site, options)
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/sites/:id/backup-policy',
      operationId: 'setSiteBackupPolicy',
      summary: 'Set a site’s own backup policy',
      description:
        'Platform staff: sets the site’s own policy over its plan’s, whole (a member null or left out takes the plan’s), and the target its backups go to (`targetId`, 422 `unknown_backup_target` when there is no such target; null: the default). The next backups follow it (a target changed: the next backup starts a repository there; the old one’s backups stay listed). Answers the policy as `GET` does.',
      scope: backupScopes.policyManage,
      staff: true,
      params: SiteParams,
      body: OwnBackupPolicyBody,
      responses: { 200: { description: 'The site’s backup policy.', schema: SiteBackupPolicy } },
      problems: [policyProblems.unknown_backup_target],
      change: onTheSite('backup_policy.update'),
      async handler({ trx, params, body, view }) {
        const site = orNotFound(await sites.find(trx, view, params.id))
        const targetId = body.targetId ?? null
        if (targetId !== null && !(await findTarget(trx, targetId)))
          throw fieldProblem(policyProblems.unknown_backup_target, 'body.targetId')
        const before = await findOwnPolicy(trx, site.id)
        const row: BackupPoliciesTable = {
          site_id: site.id,
          schedule: body.schedule ?? null,
          keep_daily: body.keepDaily ?? null,
          keep_weekly: body.keepWeekly ?? null,
          keep_monthly: body.keepMonthly ?? null,
          target_id: targetId,
          updated_at: nowIso(),
        }
        if (before && sameOwnPolicy(before, row))
          return unchanged(await siteBackupPolicy(trx, context.quotas, site, options))
        await saveOwnPolicy(trx, row)
        const { updatedAt: _, ...set } = toOwnPolicy(row)
        return recorded(await siteBackupPolicy(trx, context.quotas, site, options), {
          customerId: site.customerId,
          details: { ...set, before: before ? withoutTime(toOwnPolicy(before)) : null },
        })
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/sites/:id/backup-policy',
      operationId: 'removeSiteBackupPolicy',
      summary: 'Remove a site’s own backup policy',
      description:
        'Platform staff: the site takes its plan’s policy again, whole, and backs up to the default target. Answers the policy as `GET` does (unchanged when the site had none of its own).',
      scope: backupScopes.policyManage,
      staff: true,
      params: SiteParams,
      responses: { 200: { description: 'The site’s backup policy.', schema: SiteBackupPolicy } },
      change: onTheSite('backup_policy.remove'),
      async handler({ trx, params, view }) {
        const site = orNotFound(await sites.find(trx, view, params.id))
        const before = await findOwnPolicy(trx, site.id)
        if (!before || !(await removeOwnPolicy(trx, site.id)))
          return unchanged(await siteBackupPolicy(trx, context.quotas, site, options))
        return recorded(await siteBackupPolicy(trx, context.quotas, site, options), {
          customerId: site.customerId,
          details: { before: withoutTime(toOwnPolicy(before)) },
        })
      },
    }),
  ]
}

/** Whether two rows set the same policy (their times aside). */
function sameOwnPolicy(a: BackupPoliciesTable, b: BackupPoliciesTable): boolean {
  return (
    a.schedule === b.schedule &&
    a.keep_daily === b.keep_daily &&
    a.keep_weekly === b.keep_weekly &&
    a.keep_monthly === b.keep_monthly &&
    a.target_id === b.target_id
  )
}

/** An own policy for an audit entry: what it set, not when. */
function withoutTime(own: ReturnType<typeof toOwnPolicy>) {
  const { updatedAt: _, ...rest } = own
  return rest
}
