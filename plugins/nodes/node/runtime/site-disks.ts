// A site's disk quota, enforced by the kernel: the home of a site with a quota is an ext4 filesystem of its own, a
// sparse image file under `<dataDir>/disks/` mounted at the home through a loop device, so a write past the quota
// fails with ENOSPC whoever makes it (PHP, its temporary files, the shell, SFTP, the files API, nginx's logs of the
// site), and the kernel counts the use at once (statfs), where `du` walked the home every ten minutes and enforced
// nothing. Project quotas (XFS `prjquota`, ext4 `project`) would do it without images, but kernels without a quota
// format (this project's test machines) refuse them, so this file has no code for them (docs/nodes.md, "Disk quotas").
//
// Every step is safe to stop anywhere and to repeat: an image is named `<site id>.ext4` only once it holds the
// site's whole home, and a home that is a populated plain directory is always the site's truth.

import { chmod, mkdir, readdir, rename, rm, rmdir, stat, statfs } from 'node:fs/promises'
import { join } from 'node:path'
import { type LimitEnforcement, NodeFailure } from '../contract.ts'
import { run } from './commands.ts'
import {
  backedBy,
  blockSize,
  deviceOf,
  exists,
  growOnline,
  MiB,
  makeImage,
  mountAt,
  mountedSpace,
  mountImage,
  populated,
  programs,
  resizeOffline,
  rootReserveBytes,
  toleranceOf,
  tool,
  unfreeze,
  unmount,
} from './disk-images.ts'
import { homeBytes } from './disk-usage.ts'
import type { RuntimeLayout, SiteLayout } from './layout.ts'

/** What ends whatever holds files of the site (its processes, nginx's open logs) so its filesystem can unmount. */
export type Release = () => Promise<void>

/** How much of its disk a site uses, and whether the kernel holds it to its quota. */
export interface DiskUse {
  readonly bytes: number
  /** True when its home is its own filesystem: the quota is the filesystem's size. */
  readonly enforced: boolean
}

function belowUse(siteId: string, used: number, quotaBytes: number): NodeFailure {
  return new NodeFailure(
    `Site ${siteId} uses ${(used / MiB).toFixed(1)} MB of disk: its quota cannot go below that (asked ${quotaBytes / MiB} MB)`,
    'disk_quota_below_use',
  )
}

/**
 * Gives the mounted filesystem of the site room for its quota: grown online where the kernel allows it, else (and
 * to shrink, which ext4 does only unmounted) unmounted after `release`, checked, resized and mounted again. A
 * quota below what the site uses is refused before anything is touched.
 */
async function resize(
  paths: SiteLayout,
  quotaBytes: number,
  release: Release,
  signal: AbortSignal,
): Promise<void> {
  const wanted = quotaBytes + rootReserveBytes
  const { capacity, used } = await mountedSpace(paths.home)
  if (capacity >= wanted && capacity <= wanted + toleranceOf(wanted)) return
  if (capacity > wanted) {
    if (used > quotaBytes) throw belowUse(paths.id, used, quotaBytes)
    // resize2fs's own least size (it counts inodes and directories too): asked on the mounted device, read only.
    const least = await run(['resize2fs', '-P', await deviceOf(paths.home)], { signal })
    const blocks = Number(/minimum size of the filesystem:\s*(\d+)/.exec(least.stdout)?.[1])
    const imageBytes = (await stat(paths.image)).size
    if (Number.isFinite(blocks) && blocks * blockSize > imageBytes - (capacity - wanted))
      throw belowUse(paths.id, blocks * blockSize, quotaBytes)
  } else if (await growOnline(paths.image, paths.home, wanted, signal)) return
  await release()
  await unmount(paths.home, signal)
  try {
    await resizeOffline(paths.image, wanted, signal)
  } finally {
    await mountImage(paths.image, paths.home, signal)
  }
}

/**
 * Moves a site's plain home onto an image of its own (sites made before quotas were enforced): the image made
 * and mounted aside, the home copied into it with its owners, modes, links and times (`cp -a`), then put in the
 * home's place. The image takes its final name only once the copy is whole; until then the plain home is the site.
 */
async function moveOntoImage(
  layout: RuntimeLayout,
  paths: SiteLayout,
  quotaBytes: number,
  release: Release,
  signal: AbortSignal,
): Promise<void> {
  const staged = `${paths.image}.new`
  const stage = join(layout.disks, `${paths.id}.new`)
  await unmount(stage, signal)
  await makeImage(staged, quotaBytes + rootReserveBytes, signal)
  await mkdir(stage, { recursive: true, mode: 0o700 })
  await tool(['mount', '-t', 'ext4', '-o', 'loop,nosuid,nodev', staged, stage], signal)
  try {
    // What the home takes in whole blocks and inodes (du's, as the new filesystem will count them), against what
    // the new one has free: a home that would not fit is refused here, before the site is unserved.
    const blocks = await run(['du', '-s', '-B1', '-P', '-x', '--', paths.home], {
      signal,
      timeoutMs: 300_000,
    })
    const inodes = await run(['du', '-s', '--inodes', '-P', '-x', '--', paths.home], {
      signal,
      timeoutMs: 300_000,
    })
    const used = Number(blocks.stdout.split('\t')[0])
    const files = Number(inodes.stdout.split('\t')[0])
    const free = await statfs(stage)
    if (!(used <= Math.min(quotaBytes, free.bavail * free.bsize)) || !(files <= free.ffree)) {
      await rm(staged, { force: true })
      throw belowUse(paths.id, Number.isFinite(used) ? used : quotaBytes + 1, quotaBytes)
    }
    await release()
    const copied = await run(['cp', '-a', '--', `${paths.home}/.`, `${stage}/`], {
      signal,
      timeoutMs: 3_600_000,
    })
    if (copied.code !== 0)
      throw new Error(`Copying ${paths.home} onto its image failed: ${copied.stderr.trim()}`)
    await rmdir(join(stage, 'lost+found')).catch(() => {})
  } finally {
    await unmount(stage, signal)
    await rmdir(stage).catch(() => {})
  }
  await rename(staged, paths.image)
  const parked = join(layout.trash, `${paths.id}.plain`)
  await mkdir(layout.trash, { recursive: true, mode: 0o700 })
  await rm(parked, { recursive: true, force: true })
  await rename(paths.home, parked)
  await mountImage(paths.image, paths.home, signal)
  await rm(parked, { recursive: true, force: true })
}

/**
 * Moves a site's home off its image (its quota removed: unlimited sites keep a plain directory): copied beside the
 * home, the image unmounted and removed, the copy put in the home's place.
 */
async function moveOffImage(
  layout: RuntimeLayout,
  paths: SiteLayout,
  release: Release,
  signal: AbortSignal,
): Promise<void> {
  const copy = join(layout.sites, `.${paths.id}.plain`)
  await rm(copy, { recursive: true, force: true })
  await release()
  const copied = await run(['cp', '-a', '--', paths.home, copy], { signal, timeoutMs: 3_600_000 })
  if (copied.code !== 0)
    throw new Error(`Copying ${paths.home} off its image failed: ${copied.stderr.trim()}`)
  await unmount(paths.home, signal)
  await unfreeze(paths.home)
  await rmdir(paths.home)
  await rename(copy, paths.home)
  await rm(paths.image, { force: true })
}

/** Probes, once per data directory and process, whether this node can give sites images of their own. */
const probes = new Map<string, Promise<LimitEnforcement>>()

/** Whether a program is on the system's path. */
const installed = async (name: string) =>
  (await Promise.all(['/usr/sbin', '/usr/bin', '/sbin', '/bin'].map((dir) => exists(join(dir, name))))).some(
    Boolean,
  )

/**
 * Whether this node enforces disk quotas, and how or why not: as root, serving (a files-only node's sites are
 * another web server's), with e2fsprogs, losetup and mount installed and a loop device that mounts an ext4 image
 * (tried once: an 8 MiB image made, mounted, written and removed, some 30 ms).
 */
export function diskEnforcement(
  layout: RuntimeLayout,
  how: { readonly root: boolean; readonly serving: boolean; readonly setup: string },
): Promise<LimitEnforcement> {
  if (!how.root)
    return Promise.resolve({ enforced: false, how: 'the node does not run as root: it cannot mount' })
  if (!how.serving)
    return Promise.resolve({
      enforced: false,
      how: 'the node lays out files only: its sites are served by another',
    })
  let probe = probes.get(layout.disks)
  if (!probe) {
    probe = probeImages(layout, how.setup)
    probes.set(layout.disks, probe)
  }
  return probe
}

async function probeImages(layout: RuntimeLayout, setup: string): Promise<LimitEnforcement> {
  const missing: string[] = []
  for (const name of [...programs, 'chattr', 'cp']) if (!(await installed(name))) missing.push(name)
  if (missing.length > 0)
    return {
      enforced: false,
      how: `${missing.join(', ')} not installed (\`${setup}\` installs e2fsprogs, mount)`,
    }
  if (!(await exists('/dev/loop-control')))
    return { enforced: false, how: 'no loop devices: /dev/loop-control is missing (modprobe loop)' }
  const never = new AbortController().signal
  const image = join(layout.disks, `.probe-${process.pid}.ext4`)
  const point = join(layout.disks, `.probe-${process.pid}`)
  try {
    await mkdir(layout.disks, { recursive: true, mode: 0o700 })
    await chmod(layout.disks, 0o700)
    await makeImage(image, 8 * MiB, never)
    await mkdir(point, { recursive: true, mode: 0o700 })
    await tool(['mount', '-t', 'ext4', '-o', 'loop,nosuid,nodev,discard', image, point])
    await Bun.write(join(point, 'probe'), 'written')
    return { enforced: true, how: 'ext4 image per site (loop device)' }
  } catch (error) {
    return {
      enforced: false,
      how: `an ext4 image cannot be mounted on a loop device here: ${String((error as Error).message).slice(0, 300)}`,
    }
  } finally {
    await unmount(point, never).catch(() => {})
    await rmdir(point).catch(() => {})
    await rm(image, { force: true })
  }
}

/**
 * Makes the site's home match its quota: a site with one gets its home on an image of its own (made, moved onto,
 * mounted again after a reboot, grown, shrunk), an unlimited one a plain directory (moved off its image), where
 * `enforced`; where the node cannot enforce quotas a plain directory stays as it is. `release` ends whatever holds
 * the site's files when the filesystem must be unmounted (a move, a resize the kernel does not do mounted).
 */
export async function ensureSiteDisk(
  layout: RuntimeLayout,
  paths: SiteLayout,
  diskMB: number | null,
  enforced: boolean,
  release: Release,
  signal: AbortSignal,
): Promise<void> {
  signal.throwIfAborted()
  await mkdir(layout.disks, { recursive: true, mode: 0o700 })
  const hasImage = await exists(paths.image)
  const mounted = (await mountAt(paths.home)) !== null
  const plain = !mounted && (await populated(paths.home))
  // A stale copy of a move that stopped half way: the plain home or the image is still the site.
  await rm(`${paths.image}.new`, { force: true })
  await rm(join(layout.trash, `${paths.id}.plain`), { recursive: true, force: true })
  if (diskMB === null || !enforced) {
    if (!hasImage) return
    // The home was copied off and put in place; only the image was left to remove.
    if (plain) return void (await rm(paths.image, { force: true }))
    await mountImage(paths.image, paths.home, signal)
    if (diskMB === null) await moveOffImage(layout, paths, release, signal)
    return
  }
  const quotaBytes = diskMB * MiB
  if (plain) {
    // Populated and not mounted: a plain home, the site's truth; an image beside it is a copy that was never put in
    // place, made again.
    await rm(paths.image, { force: true })
    await moveOntoImage(layout, paths, quotaBytes, release, signal)
    return
  }
  if (!hasImage) {
    if (mounted)
      throw new NodeFailure(
        `${paths.home} has a filesystem mounted that is not the site's`,
        'unsafe_site_directory',
      )
    await makeImage(paths.image, quotaBytes + rootReserveBytes, signal)
  }
  await mountImage(paths.image, paths.home, signal)
  await resize(paths, quotaBytes, release, signal)
}

/**
 * Mounts the image of every site that has one and is not mounted (after a reboot the loop devices and mounts are
 * gone): answers the sites whose image would not mount, each with why. Their homes stay bare and unwritable.
 */
export async function mountSiteDisks(
  layout: RuntimeLayout,
  signal: AbortSignal,
): Promise<{ readonly siteId: string; readonly reason: string }[]> {
  const failed: { siteId: string; reason: string }[] = []
  for (const name of (await readdir(layout.disks).catch(() => [] as string[])).sort()) {
    if (!name.endsWith('.ext4') || name.startsWith('.')) continue
    const siteId = name.slice(0, -'.ext4'.length)
    const home = join(layout.sites, siteId)
    const image = join(layout.disks, name)
    try {
      // A populated plain home beside an image: a move that stopped half way, finished by the site's next apply.
      if (!(await mountAt(home)) && (await populated(home))) continue
      await mountImage(image, home, signal)
    } catch (error) {
      failed.push({ siteId, reason: (error as Error).message })
    }
  }
  return failed
}

/**
 * Unmounts and removes the site's image (its loop device goes with the unmount) and frees its bare mount point for
 * removal: what deleting a site does once its processes ended.
 */
export async function removeSiteDisk(
  layout: RuntimeLayout,
  paths: SiteLayout,
  signal: AbortSignal,
): Promise<void> {
  await unmount(paths.home, signal)
  // What a run stopped half way left mounted aside: a move's copy, a resized image's reading.
  for (const aside of [join(layout.disks, `${paths.id}.new`), `${paths.image}.mnt`]) {
    await unmount(aside, signal)
    await rmdir(aside).catch(() => {})
  }
  await unfreeze(paths.home)
  if (await exists(paths.home)) await chmod(paths.home, 0o700)
  await rm(paths.image, { force: true })
  await rm(`${paths.image}.new`, { force: true })
}

/**
 * What the site's files take and whether the kernel enforces its quota: the filesystem's own count (statfs, at
 * once) for a home on its image, `plain` (default `du`) for a plain home. An image that is not mounted is a failure, not a zero.
 */
export async function siteDiskUse(
  home: string,
  image: string,
  signal: AbortSignal,
  plain: (home: string, signal: AbortSignal) => Promise<number> = homeBytes,
): Promise<DiskUse> {
  if (await exists(image)) {
    const mounted = await mountAt(home)
    if (mounted && (await backedBy(mounted.source, image)))
      return { bytes: (await mountedSpace(home)).used, enforced: true }
    if (!(await populated(home))) throw new Error(`The disk image of ${home} is not mounted`)
  }
  return { bytes: await plain(home, signal), enforced: false }
}

/**
 * Mounts the site's image at its home where it has one that is not mounted (a reboot, a runtime started without
 * mounting it): before anything reads the site's `state.json`, which is on the image.
 */
export async function mountSiteDisk(paths: SiteLayout, signal: AbortSignal): Promise<void> {
  if (!(await exists(paths.image)) || (await mountAt(paths.home)) || (await populated(paths.home))) return
  await mountImage(paths.image, paths.home, signal)
}
