// Whether a site keeps hitting a limit: each reading of its node's counters is compared with the one before, and a
// kind whose hits grew at consecutive readings is told once (`site.limitReached`), then not again for a while.

import { type Db, nowIso, type Static, t } from '../../core/index.ts'
import type { ResourceKind } from '../nodes/contract.ts'
import type { SiteLimitWatchTable, SitesTables } from './migrations.ts'

/** How many readings in a row must find more hits than the one before: one more hit is not "keeps hitting". */
export const risingReadings = 2

/** How long after telling a site's kind it is not told again. */
export const limitReachedCooldownMs = 6 * 60 * 60 * 1000

/** What `site.limitReached` carries. */
export const SiteLimitReached = t.Object(
  {
    siteId: t.String({ description: 'The site, `site_…`.' }),
    customerId: t.String({ description: 'Its customer, `cus_…`.' }),
    kind: t.Union([t.Literal('cpu'), t.Literal('memory'), t.Literal('processes'), t.Literal('disk')], {
      description: 'Which limit it keeps hitting.',
    }),
    hits24h: t.Integer({ minimum: 0, description: 'How often it was hit in the last 24 hours.' }),
    limit: t.Union([t.Integer({ minimum: 0 }), t.Null()], {
      description:
        'The limit, in the unit of `GET /sites/{id}/resources` (`cpu` percent of one core, `memory` and `disk` MB, `processes`).',
    }),
  },
  { $id: 'SiteLimitReached' },
)
export type SiteLimitReached = Static<typeof SiteLimitReached>

const watch = (db: Db) => db.withTables<SitesTables>()

/**
 * Records a reading of `kind` for `siteId` (`hits24h`) at `now` and answers whether to tell it now: its hits grew
 * at {@link risingReadings} readings in a row, and it was not told within the cooldown. Telling is recorded with it,
 * so call it in the transaction that emits the event.
 */
export async function noteReading(
  db: Db,
  siteId: string,
  kind: ResourceKind,
  hits24h: number,
  now = new Date(),
): Promise<boolean> {
  const before = await watch(db)
    .selectFrom('site_limit_watch')
    .selectAll()
    .where('site_id', '=', siteId)
    .where('kind', '=', kind)
    .executeTakeFirst()
  const rising = before && hits24h > Number(before.hits24h) ? Number(before.rising) + 1 : 0
  const quiet =
    !before?.notified_at || now.getTime() - Date.parse(before.notified_at) >= limitReachedCooldownMs
  const tell = rising >= risingReadings && quiet
  const row: SiteLimitWatchTable = {
    site_id: siteId,
    kind,
    hits24h,
    rising,
    notified_at: tell ? now.toISOString() : (before?.notified_at ?? null),
    read_at: nowIso(),
  }
  if (before)
    await watch(db)
      .updateTable('site_limit_watch')
      .set(row)
      .where('site_id', '=', siteId)
      .where('kind', '=', kind)
      .execute()
  else await watch(db).insertInto('site_limit_watch').values(row).execute()
  return tell
}
