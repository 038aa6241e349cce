// What a snapshot holds besides the site's files: a folder `plinth-backup/` with `record.json` (the panel's record of
// the site), `databases/<databaseId>.sql` (each dump) and `backup.json` (this manifest: the site's home as it was
// on the node that took it, and each dump's figures), so a restore finds both wherever the snapshot was taken.

import { basename, posix } from 'node:path'
import type { Restic, Snapshot } from './restic.ts'
import { RunFailure } from './run-failure.ts'

/** The name of the folder of dumps and record in every snapshot. */
export const stagingName = 'plinth-backup'

/** `backup.json`. */
export interface BackupManifest {
  readonly format: 1
  readonly backupId: string
  readonly siteId: string
  /** The site's home on the node that took it (a clone restores from another node's path), or null without files. */
  readonly home: string | null
  readonly databases: readonly {
    readonly databaseId: string
    readonly engine: 'mariadb' | 'postgresql'
    readonly bytes: number
    readonly tables: number
  }[]
  readonly takenAt: string
}

/** Where a snapshot keeps its dumps and manifest, and the site's home, as paths in it. */
export interface SnapshotLayout {
  readonly staging: string
  readonly home: string | null
}

/** The layout of a snapshot, from its paths: the folder named {@link stagingName}, and the other (the home). */
export function layoutOf(snapshot: Snapshot): SnapshotLayout {
  // Paths a damaged or forged repository names are never joined to a folder of the node's as they come.
  if (
    !snapshot.paths.every(
      (path) => path.startsWith('/') && !path.split('/').includes('..') && !path.includes('\0'),
    )
  )
    throw new RunFailure('snapshot_missing', 'The snapshot is not a backup of a site.')
  const staging = snapshot.paths.find((path) => basename(path) === stagingName)
  if (!staging) throw new RunFailure('snapshot_missing', 'The snapshot is not a backup of a site.')
  return { staging, home: snapshot.paths.find((path) => path !== staging) ?? null }
}

/** The dump of `databaseId` as a path in the snapshot. */
export const dumpPath = (layout: SnapshotLayout, databaseId: string) =>
  posix.join(layout.staging, 'databases', `${databaseId}.sql`)

/** The manifest a snapshot holds. */
export async function manifestOf(
  restic: Restic,
  snapshotId: string,
  layout: SnapshotLayout,
): Promise<BackupManifest> {
  const text = await restic.run(
    ['dump', snapshotId, posix.join(layout.staging, 'backup.json')],
    'reading the backup’s manifest',
    1024 * 1024,
  )
  try {
    const manifest = JSON.parse(text) as BackupManifest
    if (manifest.format === 1 && Array.isArray(manifest.databases)) return manifest
  } catch {
    // Said below.
  }
  throw new RunFailure('restore_failed', 'The backup’s manifest is unreadable.')
}
