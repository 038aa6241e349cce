// One ext4 image on a loop device, the mechanics of a site's filesystem (`site-disks.ts` says which site gets one
// and when): made as a sparse file sized so the filesystem gives the room asked, mounted on a bare directory nothing
// can write into, unmounted once nothing holds it, grown mounted where the kernel allows it, resized unmounted
// otherwise; its room and use read from the superblock or the kernel (statfs).

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
  rm,
  rmdir,
  stat,
  statfs,
  truncate,
} from 'node:fs/promises'
import { join } from 'node:path'
import { NodeFailure } from '../contract.ts'
import { run, runChecked } from './commands.ts'

export const MiB = 1024 * 1024
export const blockSize = 4096
/**
 * Blocks kept for root on each site's filesystem (ext4's reserve, `-m 0` and then exactly this): the runtime still
 * writes the site's `state.json` when the site filled its quota, so a full site can be suspended or given more.
 * Added to the image, so the site's own writes get the whole quota.
 */
export const rootReserveBytes = 1 * MiB
/** One inode per 16 KiB (ext4's default): a WordPress averages 25 to 30 KiB a file; the inode table costs 1.6 %. */
const bytesPerInode = 16_384
/** How far a filesystem's room may lie above what the quota asks before it is shrunk (a block group's overhead). */
export const toleranceOf = (wanted: number) => MiB + Math.floor(wanted / 200)
/** The programs the images need: e2fsprogs's, and util-linux's and mount's. */
export const programs = [
  'mkfs.ext4',
  'tune2fs',
  'dumpe2fs',
  'e2fsck',
  'resize2fs',
  'losetup',
  'mount',
  'umount',
] as const

/** Runs a program of e2fsprogs or util-linux and answers its output; a non-zero exit throws, quoting it. */
export const tool = (argv: readonly string[], signal?: AbortSignal) =>
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
export async function backedBy(device: string, image: string): Promise<boolean> {
  const name = /^\/dev\/(loop\d+)$/.exec(device)?.[1]
  if (!name) return false
  const file = (await readFile(`/sys/block/${name}/loop/backing_file`, 'utf8').catch(() => '')).trim()
  return file !== '' && file === (await realpath(image).catch(() => image))
}

export const exists = (path: string) =>
  access(path, constants.F_OK).then(
    () => true,
    () => false,
  )

/** Whether the home is a directory with something in it (a site's plain home), not an empty mount point. */
export const populated = async (dir: string) => ((await readdir(dir).catch(() => [])) as string[]).length > 0

/**
 * The room a filesystem gives files: its blocks less ext4's own, as its superblock says (`Overhead clusters`,
 * which mke2fs writes), or, where the superblock no longer says (resize2fs clears it), as the kernel counts them
 * with the image mounted read-only a moment beside it.
 */
export async function imageCapacity(image: string): Promise<number> {
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
export async function mountedSpace(dir: string): Promise<{ capacity: number; used: number }> {
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
export async function makeImage(image: string, wanted: number, signal: AbortSignal): Promise<void> {
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
export async function unfreeze(dir: string): Promise<void> {
  if (await exists(dir)) await run(['chattr', '-i', dir])
}

/**
 * Mounts `image` at `home` (a loop device of its own, freed again by the unmount), without set-uid programs or
 * device files, with deleted files' blocks given back to the node's disk (`discard`). A filesystem the kernel
 * refuses is checked (`e2fsck -p`, what a boot does) and mounted again once.
 */
export async function mountImage(image: string, home: string, signal: AbortSignal): Promise<void> {
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
export async function unmount(home: string, signal: AbortSignal): Promise<void> {
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
export async function deviceOf(home: string): Promise<string> {
  const mounted = await mountAt(home)
  if (!mounted) throw new Error(`${home} is not mounted`)
  return mounted.source
}

/**
 * Grows the filesystem mounted at `home` while it stays mounted (the image file lengthened, the loop device told,
 * `resize2fs` on it): answers false where the kernel refuses (no CAP_SYS_RESOURCE, as in containers), and the
 * image is then grown unmounted.
 */
export async function growOnline(
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
export async function resizeOffline(image: string, wanted: number, signal: AbortSignal): Promise<void> {
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
