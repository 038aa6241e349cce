// What the sites take on their nodes' disks, as the nodes last measured it: kept per site and usage scope (the
// installation, the brand, the customer), so `GET /usage` sums it over any view, and replaced whole with each
// node's report (a site no longer reported is gone from the node).

import { type Db, type Static, t, type UsageSection } from '../../core/index.ts'
import type { NodesTables } from './migrations.ts'

/** One site's measurement, with the usage scopes its customer counts under. */
export interface SiteDiskSample {
  readonly siteId: string
  readonly scopes: readonly string[]
  readonly bytes: number
}

/** Replaces what node `nodeId`'s sites take with `samples`, measured at `at`. */
export async function recordDisk(
  db: Db,
  nodeId: string,
  samples: readonly SiteDiskSample[],
  at: Date,
): Promise<void> {
  const disk = db.withTables<NodesTables>()
  await disk.deleteFrom('node_site_disk').where('node_id', '=', nodeId).execute()
  const rows = samples.flatMap((sample) =>
    sample.scopes.map((scope_key) => ({
      node_id: nodeId,
      site_id: sample.siteId,
      scope_key,
      bytes: sample.bytes,
      measured_at: at.toISOString(),
    })),
  )
  // In slices: one statement binds at most a few thousand values on either engine.
  for (let i = 0; i < rows.length; i += 500)
    await disk
      .insertInto('node_site_disk')
      .values(rows.slice(i, i + 500))
      .execute()
}

const DiskUse = t.Object(
  {
    usedBytes: t.Integer({
      minimum: 0,
      description: 'What the sites in view take on their nodes’ disks, as the nodes last measured it.',
    }),
  },
  { description: 'Disk the sites in view use (measured by the nodes every few minutes).' },
)

/** The `disk` section of `GET /usage`. */
export type DiskUse = Static<typeof DiskUse>

async function diskUse(db: Db, scopes: readonly string[]): Promise<DiskUse> {
  if (scopes.length === 0) return { usedBytes: 0 }
  const row = await db
    .withTables<NodesTables>()
    .selectFrom('node_site_disk')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('bytes'), eb.lit(0)).as('bytes'))
    .where('scope_key', 'in', scopes)
    .executeTakeFirst()
  return { usedBytes: Number(row?.bytes ?? 0) }
}

/** The `disk` section of `GET /usage`. */
export const diskSection: UsageSection = { name: 'disk', schema: DiskUse, read: diskUse }
