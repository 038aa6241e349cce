// A site's files made exactly a snapshot's (the whole of what a restore replaces, or the paths asked), never touching
// what `keep` names. restic restores as root into a fresh folder of root's (0700) at the top of the site's home (on
// the site's own disk, so its quota holds; in a folder of root's, which the site cannot rename nor swap for a link);
// what it wrote is stripped of devices, FIFOs and sockets and given to the site's user while the folder is still
// closed to the site; then the sync into the site runs AS THE SITE'S USER (`rsync --delete`), so the kernel refuses
// any write outside what the site may touch, whatever links the site made.

import { lstat, mkdir, readdir } from 'node:fs/promises'
import { posix } from 'node:path'
import type { NodeSite } from '../../nodes/node/contract.ts'
import type { SnapshotLayout } from './backup-manifest.ts'
import { restoreFolderPrefix } from './file-sample.ts'
import { systemEnv } from './processes.ts'
import { literalPattern, type Restic } from './restic.ts'
import type { RunContext } from './run-context.ts'
import { RunFailure, scrubbed } from './run-failure.ts'
import { checkedSitePath, restorablePath, restorableRoots, rsyncLiteral, within } from './site-paths.ts'

/** Syncs `$1` (in the restored folder) to `$2` (in the site) as the site's user; `$3`: `sync`, `empty` or `remove`. */
const syncScript = `src=$1; dst=$2; mode=$3; shift 3
if [ "$mode" = remove ]; then exec rm -rf -- "$dst"; fi
if [ -d "$src" ] && [ ! -L "$src" ]; then
  if [ -L "$dst" ] || { [ -e "$dst" ] && [ ! -d "$dst" ]; }; then rm -f -- "$dst" || exit 1; fi
  mkdir -p -- "$dst" || exit 1
  exec rsync -rlpt --checksum --delete --delete-before "$@" "$src/" "$dst/"
fi
if [ -d "$dst" ] && [ ! -L "$dst" ]; then rm -rf -- "$dst" || exit 1; fi
mkdir -p -- "\${dst%/*}" || exit 1
exec rsync -lpt --checksum "$src" "$dst"`

/** How long one sync may take (a site of many gigabytes). */
const syncTimeoutMs = 6 * 3600_000

/** What to restore: the paths, outer ones only, and those a kept path covers left out. */
function plan(files: true | readonly string[], keep: readonly string[]) {
  const kept = keep.map(checkedSitePath)
  const asked = files === true ? [...restorableRoots] : files.map(restorablePath)
  const targets = [...new Set(asked)]
    .sort()
    .filter((path, index, all) => !all.slice(0, index).some((outer) => within(outer, path)))
    .filter((path) => !kept.some((keptPath) => within(keptPath, path)))
  return { targets, kept }
}

/** Regular files under `dir`, links not followed. */
async function countFiles(dir: string): Promise<number> {
  const stats = await lstat(dir).catch(() => null)
  if (!stats) return 0
  if (stats.isFile()) return 1
  if (!stats.isDirectory()) return 0
  let count = 0
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) count += await countFiles(posix.join(dir, entry.name))
    else if (entry.isFile()) count++
  }
  return count
}

/** Makes the site's files the snapshot's as asked; answers how many files it restored. */
export async function restoreFiles(
  restic: Restic,
  snapshotId: string,
  layout: SnapshotLayout,
  site: NodeSite,
  request: { files: true | readonly string[]; keep: readonly string[] },
  context: RunContext,
): Promise<number> {
  const from = layout.home
  if (!from) throw new RunFailure('restore_failed', 'The backup holds no files of the site.')
  const { targets, kept } = plan(request.files, request.keep)
  if (targets.length === 0) return 0
  const folder = posix.join(site.home, `${restoreFolderPrefix}${context.runId}`)
  const groups = restic.groups
  await groups.output(['rm', '-rf', '--one-file-system', '--', folder], systemEnv)
  await mkdir(folder, { mode: 0o700 })
  const shown = (text: string) =>
    scrubbed(
      text.replaceAll(posix.join(folder, from), '').replaceAll(site.home, ''),
      [],
      [context.dataDir, folder],
    )
  try {
    context.report(10, 'restoring files from the snapshot')
    await restic.run(
      [
        'restore',
        snapshotId,
        '--target',
        folder,
        ...targets.flatMap((path) => ['--include', literalPattern(posix.join(from, path))]),
      ],
      'restoring the files',
    )
    // What no site's user could have made, and what would give it a device of the node's once it is the user's.
    await groups.output(
      [
        'find',
        folder,
        '-xdev',
        '-mindepth',
        '1',
        '(',
        '-type',
        'b',
        '-o',
        '-type',
        'c',
        '-o',
        '-type',
        'p',
        '-o',
        '-type',
        's',
        ')',
        '-delete',
      ],
      systemEnv,
    )
    await mkdir(posix.join(folder, '.empty'), { mode: 0o700 })
    let restored = 0
    const modes = new Map<string, 'sync' | 'empty' | 'remove'>()
    for (const path of targets) {
      const source = posix.join(folder, from, path)
      const present = (await lstat(source).catch(() => null)) !== null
      // A path asked by name that the backup lacks is a mistake to say, not a folder of the site to delete.
      if (!present && request.files !== true)
        throw new RunFailure('not_in_backup', `${path} is not in the backup: nothing was restored.`)
      restored += present ? await countFiles(source) : 0
      modes.set(path, present ? 'sync' : kept.some((keptPath) => within(path, keptPath)) ? 'empty' : 'remove')
    }
    if (site.user) await handOver(folder, site, groups)
    context.report(60, 'syncing the site’s files')
    for (const [index, path] of targets.entries()) {
      context.signal.throwIfAborted()
      const mode = modes.get(path) ?? 'remove'
      const source = mode === 'empty' ? posix.join(folder, '.empty') : posix.join(folder, from, path)
      const excludes = kept
        .filter((keptPath) => keptPath !== path && within(path, keptPath))
        .map((keptPath) => `--exclude=${rsyncLiteral(posix.relative(path, keptPath))}`)
      const result = await site.run(
        [
          '/bin/sh',
          '-c',
          syncScript,
          'plinth-restore',
          source,
          posix.join(site.home, path),
          mode,
          ...excludes,
        ],
        { timeoutMs: syncTimeoutMs },
        context.signal,
      )
      if (result.code !== 0) {
        const said = `${result.stderr}\n${result.stdout}`
        if (/No space left|Disk quota exceeded/i.test(said))
          throw new RunFailure(
            'disk_quota_exceeded',
            `The site’s disk is full: ${path} could not be restored whole.`,
          )
        throw new RunFailure('restore_failed', `${path} could not be restored: ${shown(said)}`)
      }
      context.report(60 + Math.round((30 * (index + 1)) / targets.length), 'syncing the site’s files')
    }
    await regroupDocuments(site, groups)
    return restored
  } finally {
    // Closed to the site again before root removes it (the site's links inside are never followed by rm).
    await groups.output(['chown', '-h', '0:0', folder], systemEnv)
    await groups.output(['chmod', '0700', folder], systemEnv)
    await groups.output(['rm', '-rf', '--one-file-system', '--', folder], systemEnv)
  }
}

/** Gives what was restored to the site's user, the folder itself last (until then the site cannot enter it). */
async function handOver(folder: string, site: NodeSite, groups: Restic['groups']): Promise<void> {
  const user = site.user
  if (!user) return
  const owner = `${user.uid}:${user.gid}`
  const inside = (await readdir(folder)).map((name) => posix.join(folder, name))
  if (inside.length > 0) {
    const result = await groups.output(['chown', '-hR', owner, '--', ...inside], systemEnv)
    if (result.code !== 0)
      throw new RunFailure('restore_failed', 'The restored files could not be given to the site’s user.')
  }
  await groups.output(['chown', '-h', owner, folder], systemEnv)
}

/**
 * The documents' group put back where the sync changed it: rsync run by a user gives what it writes the user's own
 * group, where the site's own writes in its document root take the group nginx's workers read with (the root's
 * set-group-id bit). Only entries with the user's group change, links not followed, from the document root down (a
 * folder of root's home the site cannot swap for a link).
 */
async function regroupDocuments(site: NodeSite, groups: Restic['groups']): Promise<void> {
  const user = site.user
  if (!user) return
  const htdocs = posix.join(site.home, 'htdocs')
  const webGid = (await lstat(htdocs)).gid
  if (webGid === user.gid) return
  const result = await groups.output(
    ['chown', '-hR', `--from=:${user.gid}`, `:${webGid}`, '--', htdocs],
    systemEnv,
  )
  if (result.code !== 0)
    throw new RunFailure('restore_failed', 'The restored documents could not be given nginx’s group.')
}
