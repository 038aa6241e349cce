// A site's disk quota, enforced by the kernel: the home of a site with a quota is an ext4 filesystem of its own, a
// sparse image file under `<dataDir>/disks/` mounted at the home through a loop device, so a write past the quota
// fails with ENOSPC whoever makes it (PHP, its temporary files, the shell, SFTP, the files API, nginx's logs of the
// site), and the kernel counts the use at once (statfs), where `du` walked the home every ten minutes and enforced
// nothing. Project quotas (XFS `prjquota`, ext4 `project`) would do it without images, but kernels without a quota
// format (this project's test machines) refuse them, so this file has no code for them (docs/operating-nodes.md).
//
// Every step is safe to stop anywhere and to repeat: an image is named `<site id>.ext4` only once it holds the
// site's whole home, and a home that is a populated plain directory is always the site's truth.

import { constants } from 'node:fs'
import {
  access,
  chmod,
  lchown,
  mkdir,
  readdir,
  readFile,
  readlink,
  realpath,
  rename,
  rm,
  rmdir,
  stat,
  statfs,
  truncate,
} from 'node:fs/promises'
import { join } from 'node:path'
import { type LimitEnforcement, NodeFailure } from '../contract.ts'
import { run, runChecked } from './commands.ts'
import { homeBytes } from './disk-usage.ts'
import type { RuntimeLayout, SiteLayout } from './layout.ts'

const MiB = 1024 * 1024
const blockSize = 4096
/**
 * Blocks kept for root on each site's filesystem (ext4's reserve, `-m 0` and then exactly this): the runtime still
 * writes the site's `state.json` when the site filled its quota, so a full site can be suspended or given more.
 * Added to the image, so the site's own writes get the whole quota.
 */
export const rootReserveBytes = 1 * MiB
/** One inode per 16 KiB (ext4's default): a WordPress averages 25 to 30 KiB a file; the inode table costs 1.6 %. */
const bytesPerInode = 16_384
/** How far a filesystem's room may lie above what the quota asks before it is shrunk (a block group's overhead). */
const toleranceOf = (wanted: number) => MiB + Math.floor(wanted / 200)
/** The programs the images need: e2fsprogs's, and util-linux's and mount's. */
const programs = [
  'mkfs.ext4',
  'tune2fs',
  'dumpe2fs',
  'e2fsck',
  'resize2fs',
  'losetup',
  'mount',
  'umount',
] as const

/** What ends whatever holds files of the site (its processes, nginx's open logs) so its filesystem can unmount. */
export type Release = () => Promise<void>

/** How much of its disk a site uses, and whether the kernel holds it to its quota. */
export interface DiskUse {
  readonly bytes: number
  /** True when its home is its own filesystem: the quota is the filesystem's size. */
  readonly enforced: boolean
}

/** Runs a program of e2fsprogs or util-linux and answers its output; a non-zero exit throws, quoting it. */
const tool = (argv: readonly string[], signal?: AbortSignal) =>
  runChecked(argv[0] ?? '', argv, { ...(signal ? { signal } : {}), timeoutMs: 600_000 })

/** Decodes the octal escapes of /proc's mount tables (`\040` for a space). */
const decodeMountPath = (text: string) =>
  text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)))

/** The filesystem mounted at `dir` (the topmost), as /proc/self/mountinfo says: its source device and type. */
export async function mountAt(
  dir: string,
): Promise<{ readonly source: string; readonly type: string } | null> {
  let found: { source: string; type: string } | null = null
  for (const line of (await readFile('/proc/self/mountinfo', 'utf8')).split('\n')) {
    const [before, after] = line.split(' - ')
    const point = before?.split(' ')[4]
    if (point === undefined || after === undefined || decodeMountPath(point) !== dir) continue
    const [type = '', source = ''] = after.split(' ')
    found = { source: decodeMountPath(source), type }
  }
  return found
}

/** Whether loop device `device` (`/dev/loop3`) is backed by `image` (compared as real paths, as the kernel says it). */
async function backedBy(device: string, image: string): Promise<boolean> {
  const name = /^\/dev\/(loop\d+)$/.exec(device)?.[1]
  if (!name) return false
  const file = (await readFile(`/sys/block/${name}/loop/backing_file`, 'utf8').catch(() => '')).trim()
  return file !== '' && file === (await realpath(image).catch(() => image))
}

const exists = (path: string) =>
  access(path, constants.F_OK).then(
    () => true,
    () => false,
  )

/** Whether the home is a directory with something in it (a site's plain home), not an empty mount point. */
const populated = async (dir: string) => ((await readdir(dir).catch(() => [])) as string[]).length > 0

/**
 * The room a filesystem gives files: its blocks less ext4's own, as its superblock says (`Overhead clusters`,
 * which mke2fs writes), or, where the superblock no longer says (resize2fs clears it), as the kernel counts them
 * with the image mounted read-only a moment beside it.
 */
async function imageCapacity(image: string): Promise<number> {
  const header = await tool(['dumpe2fs', '-h', image])
  const count = Number(/^Block count:\s+(\d+)/m.exec(header)?.[1])
  const overhead = Number(/^Overhead clusters:\s+(\d+)/m.exec(header)?.[1])
  if (Number.isFinite(count) && Number.isFinite(overhead)) return (count - overhead) * blockSize
  const point = `${image}.mnt`
  const never = new AbortController().signal
  await mkdir(point, { recursive: true, mode: 0o700 })
  try {
    await tool(['mount', '-t', 'ext4', '-o', 'loop,ro,noload', image, point])
    return (await mountedSpace(point)).capacity
  } finally {
    await unmount(point, never)
    await rmdir(point).catch(() => {})
  }
}

/** The room and the use of the filesystem mounted at `dir`, from the kernel (statfs), at once. */
async function mountedSpace(dir: string): Promise<{ capacity: number; used: number }> {
  const space = await statfs(dir)
  return { capacity: space.blocks * space.bsize, used: (space.blocks - space.bfree) * space.bsize }
}

const roundUp = (bytes: number) => Math.ceil(bytes / blockSize) * blockSize

/**
 * Resizes (with `resize`, which answers the room it got) until the filesystem gives at least `wanted` and at most
 * {@link toleranceOf} more: ext4 keeps part of each block group for itself, so the image is sized from the ratio
 * the filesystem shows, and a second round corrects what a group's boundary took.
 */
async function fit(
  wanted: number,
  start: { imageBytes: number; capacity: number },
  resize: (imageBytes: number) => Promise<number>,
): Promise<void> {
  let { imageBytes, capacity } = start
  for (let round = 0; round < 6; round++) {
    if (capacity >= wanted && capacity <= wanted + toleranceOf(wanted)) return
    const ratio = capacity > 0 ? imageBytes / capacity : 1.1
    let next = roundUp(imageBytes + (wanted - capacity) * ratio)
    // Short by less than a block's worth of overhead: one more block group's worth at least.
    if (capacity < wanted) next = Math.max(next, imageBytes + 256 * blockSize)
    imageBytes = next
    capacity = await resize(imageBytes)
  }
  if (capacity < wanted) throw new Error(`The site's filesystem gives ${capacity} bytes, short of ${wanted}`)
}

/** The filesystem's journal: 4 MiB (ext4's least at 4 KiB blocks) below 256 MiB, 16 MiB above. */
const journalMB = (wanted: number) => (wanted < 256 * MiB ? 4 : 16)

/**
 * Makes `image`: a sparse file holding an ext4 filesystem with room for `wanted` bytes, root's reserve exactly
 * {@link rootReserveBytes}. The journal and inode tables are left for the kernel to initialise (`lazy_*`): a
 * sparse file reads as zeros, so nothing stale can be found in them.
 */
async function makeImage(image: string, wanted: number, signal: AbortSignal): Promise<void> {
  const format = async (imageBytes: number) => {
    await rm(image, { force: true })
    await Bun.write(image, '')
    await chmod(image, 0o600)
    await truncate(image, imageBytes)
    await tool(
      [
        'mkfs.ext4',
        '-q',
        '-F',
        '-m',
        '0',
        '-b',
        String(blockSize),
        '-I',
        '256',
        '-i',
        String(bytesPerInode),
        '-J',
        `size=${journalMB(wanted)}`,
        '-E',
        'nodiscard,lazy_itable_init=1,lazy_journal_init=1',
        image,
      ],
      signal,
    )
    return imageCapacity(image)
  }
  const first = roundUp(wanted * (1 + 256 / bytesPerInode) + journalMB(wanted) * MiB + MiB)
  await fit(wanted, { imageBytes: first, capacity: await format(first) }, format)
  await tool(['tune2fs', '-r', String(rootReserveBytes / blockSize), image], signal)
}

/**
 * The bare directory the image is mounted on: root's, mode 000 and immutable where the filesystem allows it, so
 * that nothing (a site's process, nginx, the runtime itself) writes into it while the image is not mounted: a
 * site is never served from an empty directory beneath its filesystem.
 */
async function bareMountPoint(home: string): Promise<void> {
  await mkdir(home, { recursive: true })
  await unfreeze(home)
  await lchown(home, 0, 0)
  await chmod(home, 0o000)
  await run(['chattr', '+i', home])
}

/** Takes the immutable flag off a bare mount point so it can be removed or renamed. */
async function unfreeze(dir: string): Promise<void> {
  if (await exists(dir)) await run(['chattr', '-i', dir])
}

/**
 * Mounts `image` at `home` (a loop device of its own, freed again by the unmount), without set-uid programs or
 * device files, with deleted files' blocks given back to the node's disk (`discard`). A filesystem the kernel
 * refuses is checked (`e2fsck -p`, what a boot does) and mounted again once.
 */
async function mountImage(image: string, home: string, signal: AbortSignal): Promise<void> {
  const mounted = await mountAt(home)
  if (mounted) {
    if (await backedBy(mounted.source, image)) return
    throw new NodeFailure(
      `${home} has another filesystem mounted (${mounted.source})`,
      'unsafe_site_directory',
    )
  }
  if (await populated(home))
    throw new NodeFailure(
      `${home} holds files: the site's image cannot be mounted over them`,
      'unsafe_site_directory',
    )
  await bareMountPoint(home)
  const mount = () => run(['mount', '-t', 'ext4', '-o', 'loop,nosuid,nodev,discard', image, home], { signal })
  let result = await mount()
  if (result.code !== 0) {
    await run(['e2fsck', '-p', image], { signal, timeoutMs: 600_000 })
    result = await mount()
  }
  if (result.code !== 0)
    throw new Error(
      `The disk image of ${home} could not be mounted: ${(result.stderr || result.stdout).trim()}`,
    )
  // ext4's lost+found would show among the site's folders; e2fsck makes it again when it needs one.
  await rmdir(join(home, 'lost+found')).catch(() => {})
}

/** The processes holding files under `dir` open, as their pids: why an unmount was refused. */
async function holdersOf(dir: string): Promise<number[]> {
  const pids: number[] = []
  const inside = (target: string) => target === dir || target.startsWith(`${dir}/`)
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const links = [`/proc/${name}/cwd`, `/proc/${name}/root`]
    for (const fd of await readdir(`/proc/${name}/fd`).catch(() => [] as string[]))
      links.push(`/proc/${name}/fd/${fd}`)
    for (const link of links) {
      if (inside(await readlink(link).catch(() => ''))) {
        pids.push(Number(name))
        break
      }
    }
  }
  return pids
}

/** Unmounts `home`, waiting up to 10 s for what still holds its files (nginx's old workers finishing requests). */
async function unmount(home: string, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + 10_000
  for (;;) {
    if (!(await mountAt(home))) return
    const result = await run(['umount', home], { signal })
    if (result.code === 0) return
    if (Date.now() > deadline)
      throw new Error(
        `${home} could not be unmounted (${(result.stderr || result.stdout).trim()}); processes holding it: ${(await holdersOf(home)).join(', ') || 'none found'}`,
      )
    await Bun.sleep(100)
  }
}

/** The loop device behind the image mounted at `home`. */
async function deviceOf(home: string): Promise<string> {
  const mounted = await mountAt(home)
  if (!mounted) throw new Error(`${home} is not mounted`)
  return mounted.source
}

/**
 * Grows the filesystem mounted at `home` while it stays mounted (the image file lengthened, the loop device told,
 * `resize2fs` on it): answers false where the kernel refuses (no CAP_SYS_RESOURCE, as in containers), and the
 * image is then grown unmounted.
 */
async function growOnline(
  image: string,
  home: string,
  wanted: number,
  signal: AbortSignal,
): Promise<boolean> {
  const device = await deviceOf(home)
  const resize = async (imageBytes: number) => {
    await truncate(image, imageBytes)
    await tool(['losetup', '-c', device], signal)
    const result = await run(['resize2fs', device], { signal, timeoutMs: 600_000 })
    if (result.code !== 0) throw new OnlineRefused((result.stderr || result.stdout).trim())
    return (await mountedSpace(home)).capacity
  }
  try {
    await fit(
      wanted,
      { imageBytes: (await stat(image)).size, capacity: (await mountedSpace(home)).capacity },
      resize,
    )
    return true
  } catch (error) {
    if (error instanceof OnlineRefused) return false
    throw error
  }
}

class OnlineRefused extends Error {}

/** Resizes the unmounted `image` to give room for `wanted` bytes (checked first, `e2fsck -f`, as resize2fs asks). */
async function resizeOffline(image: string, wanted: number, signal: AbortSignal): Promise<void> {
  await tool(['e2fsck', '-f', '-y', image], signal).catch(async (error: Error) => {
    // 1: errors corrected; anything above is a filesystem e2fsck could not mend.
    const again = await run(['e2fsck', '-f', '-y', image], { signal, timeoutMs: 600_000 })
    if (again.code > 1) throw error
  })
  const resize = async (imageBytes: number) => {
    if (imageBytes > (await stat(image)).size) {
      await truncate(image, imageBytes)
      await tool(['resize2fs', image], signal)
    } else {
      await tool(['resize2fs', image, String(imageBytes / blockSize)], signal)
      await truncate(image, imageBytes)
    }
    return imageCapacity(image)
  }
  await fit(wanted, { imageBytes: (await stat(image)).size, capacity: await imageCapacity(image) }, resize)
}

/** The refusal of a quota below what the site uses: nothing changed. */
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
  const used = await homeBytes(paths.home, signal)
  if (used > quotaBytes) throw belowUse(paths.id, used, quotaBytes)
  const staged = `${paths.image}.new`
  const stage = join(layout.disks, `${paths.id}.new`)
  await unmount(stage, signal)
  await makeImage(staged, quotaBytes + rootReserveBytes, signal)
  await release()
  await mkdir(stage, { recursive: true, mode: 0o700 })
  await tool(['mount', '-t', 'ext4', '-o', 'loop,nosuid,nodev', staged, stage], signal)
  try {
    const copied = await run(['cp', '-a', '--', `${paths.home}/.`, `${stage}/`], {
      signal,
      timeoutMs: 3_600_000,
    })
    if (copied.code !== 0) {
      if (/No space left/.test(copied.stderr)) throw belowUse(paths.id, used, quotaBytes)
      throw new Error(`Copying ${paths.home} onto its image failed: ${copied.stderr.trim()}`)
    }
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
 * once) for a home on its image, `du` for a plain home. An image that is not mounted is a failure, not a zero.
 */
export async function siteDiskUse(home: string, image: string, signal: AbortSignal): Promise<DiskUse> {
  if (await exists(image)) {
    const mounted = await mountAt(home)
    if (mounted && (await backedBy(mounted.source, image)))
      return { bytes: (await mountedSpace(home)).used, enforced: true }
    if (!(await populated(home))) throw new Error(`The disk image of ${home} is not mounted`)
  }
  return { bytes: await homeBytes(home, signal), enforced: false }
}

/**
 * Mounts the site's image at its home where it has one that is not mounted (a reboot, a runtime started without
 * mounting it): before anything reads the site's `state.json`, which is on the image.
 */
export async function mountSiteDisk(paths: SiteLayout, signal: AbortSignal): Promise<void> {
  if (!(await exists(paths.image)) || (await mountAt(paths.home)) || (await populated(paths.home))) return
  await mountImage(paths.image, paths.home, signal)
}
