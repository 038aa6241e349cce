// Staff's list of sites whose last good backup is overdue: older than their schedule's period and a grace.

import {
  type Db,
  defineRoute,
  enumOf,
  keyedList,
  type PluginContext,
  type RouteDefinition,
  type Static,
  type TenantView,
  t,
} from '../../../../core/index.ts'
import { siteDirectory } from '../../../sites/contract.ts'
import { backupScopes, scheduleKinds } from '../../contract.ts'
import { backupsSince, scheduleStart } from '../backups-since.ts'
import { effectivePolicy, planBackupsCache } from '../effective-policy.ts'
import type { ResolvedPolicyOptions } from '../policy-options.ts'
import { backupStandings, ownPoliciesOf } from '../policy-rows.ts'
import { isOverdue } from '../schedule-slots.ts'

/** A site in the list. */
export const OverdueSite = t.Object(
  {
    siteId: t.String({ description: '`site_…`' }),
    customerId: t.String({ description: '`cus_…`' }),
    domain: t.String(),
    nodeId: t.Union([t.String(), t.Null()], { description: 'The node it runs on, `nod_…`.' }),
    schedule: enumOf(scheduleKinds, { description: 'Its effective schedule (`daily` or `weekly`).' }),
    lastGoodBackupAt: t.Union([t.String({ format: 'date-time' }), t.Null()], {
      description: 'When its last `completed` backup finished; null: it never had one.',
    }),
    lastFailure: t.Union(
      [
        t.Object({
          code: t.String({
            description: 'The failed backup’s code (`backup_limit_reached`, `repository_unreachable`, …).',
          }),
          message: t.String(),
          at: t.String({ format: 'date-time' }),
        }),
        t.Null(),
      ],
      { description: 'Its last failed backup, whatever its reason; null when none failed.' },
    ),
  },
  { $id: 'OverdueSite' },
)
export type OverdueSite = Static<typeof OverdueSite>

/** Sites read from the directory at a time while the list looks for overdue ones. */
const scanBatch = 200

/** The list's route. */
export function overdueRoutes(context: PluginContext, options: ResolvedPolicyOptions): RouteDefinition[] {
  const sites = context.use(siteDirectory)

  /** Up to `limit` overdue sites of `view` after `after`, by site id, scanning the active sites in batches. */
  async function overdueAfter(db: Db, view: TenantView, after: string | null, limit: number) {
    const now = options.now()
    const planOf = planBackupsCache(db, context.quotas)
    const installed = await backupsSince(db)
    const found: OverdueSite[] = []
    let cursor = after
    while (found.length < limit) {
      const batch = await sites.listActive(db, view, cursor, scanBatch)
      if (batch.length === 0) break
      const ids = batch.map((site) => site.id)
      const own = await ownPoliciesOf(db, ids)
      const standings = await backupStandings(db, ids)
      for (const site of batch) {
        const { policy } = effectivePolicy(own.get(site.id), await planOf(site.customerId))
        const standing = standings.get(site.id)
        const lastGoodAt = standing?.lastGoodAt ?? null
        if (
          !isOverdue(
            policy.schedule,
            { lastGoodAt, createdAt: scheduleStart(site.createdAt, installed) },
            now,
            options.overdueGraceMs,
          )
        )
          continue
        found.push({
          siteId: site.id,
          customerId: site.customerId,
          domain: site.domain,
          nodeId: site.nodeId,
          schedule: policy.schedule,
          lastGoodBackupAt: lastGoodAt,
          lastFailure: standing?.lastFailure ?? null,
        })
        if (found.length === limit) break
      }
      cursor = batch.at(-1)?.id ?? cursor
      if (batch.length < scanBatch) break
    }
    return found
  }

  return [
    defineRoute({
      method: 'GET',
      path: '/backups/overdue',
      operationId: 'listOverdueBackups',
      summary: 'List sites whose backups are overdue',
      description:
        'Staff: the active sites whose last good (`completed`) backup, or without one their creation, is older than their schedule’s period (a day, a week) and a grace (6 hours by default), by site id: each with its schedule, its last good backup and its last failure. Sites whose schedule is `off` are never in it.',
      scope: backupScopes.policyManage,
      staff: true,
      list: { item: OverdueSite, key: 'siteId' },
      async handler({ db, view }) {
        return keyedList((after, limit) => overdueAfter(db, view, after ?? null, limit))
      },
    }),
  ]
}
