// Archives in a site, as the site's user: zip and tar.gz made from paths of one folder (links stored as links), and
// extracted only after every entry's name was checked (no absolute names, no `..`, no hard link out), into a fresh
// folder of the site's tmp/ that is then walked for links pointing out of it before anything reaches `to`. Progress
// is counted from the tools' verbose output, entry by entry.

import { lstat, readdir, readlink } from 'node:fs/promises'
import { dirname, posix, resolve } from 'node:path'
import type { NodeSite } from '../../nodes/contract.ts'
import { FileRefusal } from './file-refusal.ts'
import { isInside, type Located } from './site-paths.ts'

/** The archive formats, by the name's ending. */
export type ArchiveFormat = 'zip' | 'tar.gz'

/** How far an archive task got: entries done of all. */
export interface ArchiveProgress {
  done: number
  total: number
}

/** The format a path's name says, or a refusal. */
export function formatOf(path: string): ArchiveFormat {
  if (/\.zip$/i.test(path)) return 'zip'
  if (/\.(tar\.gz|tgz)$/i.test(path)) return 'tar.gz'
  throw new FileRefusal('invalid_archive', `${path} is neither a .zip nor a .tar.gz (.tgz)`)
}

/** Runs `argv` as the site's user, counting its output lines into `progress`; resolves with its stderr. */
async function runCounting(
  site: NodeSite,
  argv: string[],
  cwd: string,
  progress: ArchiveProgress,
  signal: AbortSignal,
): Promise<{ code: number; stdout: string; stderr: string }> {
  signal.throwIfAborted()
  const child = Bun.spawn(site.asUser(argv), {
    cwd,
    env: { ...site.environment },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    timeout: 3_600_000,
    signal,
  })
  let stdout = ''
  const counting = (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of child.stdout) {
      const text = decoder.decode(chunk, { stream: true })
      for (const char of text) if (char === '\n') progress.done = Math.min(progress.total, progress.done + 1)
      // Only the tail is kept: a listing of a million entries is counted, not held.
      stdout = (stdout + text).slice(-1_000_000)
    }
  })()
  const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited, counting])
  return { code, stdout, stderr }
}

/** A C-quoted name as GNU tar prints it with `--quoting-style=c`. */
function unquote(quoted: string): string {
  return JSON.parse(
    quoted.replace(
      /\\([0-7]{3})/g,
      (_, octal: string) => `\\u${Number.parseInt(octal, 8).toString(16).padStart(4, '0')}`,
    ),
  ) as string
}

/** Refuses an entry name that is absolute, climbs with `..`, or holds a control character. */
function checkEntryName(name: string, archive: string): void {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  const unsafe = name.startsWith('/') || /[\u0000-\u001f]/.test(name) || name.split('/').includes('..')
  if (unsafe)
    throw new FileRefusal(
      'archive_entry_escapes',
      `${archive} holds an entry outside its folder: ${JSON.stringify(name)}`,
      {
        entry: name,
      },
    )
}

/** The entries of a tar.gz, each checked; its hard links' targets too. */
async function tarEntries(site: NodeSite, archive: Located, signal: AbortSignal): Promise<number> {
  const result = await site.run(
    ['tar', '-tvzf', archive.absolute, '--quoting-style=c', '--numeric-owner'],
    { timeoutMs: 600_000 },
    signal,
  )
  if (result.code !== 0)
    throw new FileRefusal(
      'invalid_archive',
      `${archive.site.path} is not a readable tar.gz: ${result.stderr.trim().slice(0, 300)}`,
    )
  let count = 0
  for (const line of result.stdout.split('\n')) {
    if (line === '') continue
    const match =
      /^(\S)\S*\s+\S+\s+\d+\s+\S+\s+\S+\s+("(?:[^"\\]|\\.)*")(?: (->|link to) ("(?:[^"\\]|\\.)*"))?$/.exec(
        line,
      )
    if (!match)
      throw new FileRefusal('invalid_archive', `${archive.site.path} has an entry that cannot be read`)
    const [, kind, name = '""', linkKind, target] = match
    checkEntryName(unquote(name), archive.site.path)
    // A hard link names another entry of the archive: never one outside it.
    if (linkKind === 'link to' && target) checkEntryName(unquote(target), archive.site.path)
    if (kind !== '-' && kind !== 'd' && kind !== 'l' && kind !== 'h')
      throw new FileRefusal(
        'invalid_archive',
        `${archive.site.path} holds a device, FIFO or other special entry`,
      )
    count++
  }
  return count
}

/** The entries of a zip, each checked. */
async function zipEntries(site: NodeSite, archive: Located, signal: AbortSignal): Promise<number> {
  const result = await site.run(['zipinfo', '-1', archive.absolute], { timeoutMs: 600_000 }, signal)
  if (result.code !== 0)
    throw new FileRefusal(
      'invalid_archive',
      `${archive.site.path} is not a readable zip: ${result.stderr.trim().slice(0, 300)}`,
    )
  const names = result.stdout.split('\n').filter((name) => name !== '')
  for (const name of names) checkEntryName(name, archive.site.path)
  const header = await site.run(['zipinfo', '-h', archive.absolute], {}, signal)
  const declared = Number(/number of entries: (\d+)/.exec(header.stdout)?.[1] ?? Number.NaN)
  // A name with a newline would split into two lines: the count says so.
  if (declared !== names.length)
    throw new FileRefusal('invalid_archive', `${archive.site.path} has entry names that cannot be read`)
  return names.length
}

/** Refuses a link under `root` whose target resolves outside `root` (an absolute target always). */
async function checkLinks(root: string, dir: string, archive: string): Promise<void> {
  for (const name of await readdir(dir)) {
    const path = `${dir}/${name}`
    const stats = await lstat(path)
    if (stats.isSymbolicLink()) {
      const target = await readlink(path)
      if (target.startsWith('/') || !isInside(root, resolve(dirname(path), target)))
        throw new FileRefusal(
          'archive_link_escapes',
          `${archive} holds a link pointing out of it: ${posix.relative(root, path)} -> ${target}`,
          { entry: posix.relative(root, path), target },
        )
    } else if (stats.isDirectory()) await checkLinks(root, path, archive)
  }
}

/** Options of an extraction. */
export interface Extraction {
  readonly archive: Located
  /** Where the entries go: a folder made for them, or (with `overwrite`) one that exists. */
  readonly to: Located
  readonly overwrite: boolean
  /** A folder of the site's tmp/ for this task, made afresh (the caller removes it). */
  readonly staging: string
  /** Refuses when the site has no room for `bytes` more (the extracted files, before they are copied out). */
  readonly checkRoom: (bytes: number) => Promise<void>
}

/** Extracts `archive` into `to` through `staging`; `progress` counts entries. */
export async function extract(
  site: NodeSite,
  { archive, to, overwrite, staging, checkRoom }: Extraction,
  progress: ArchiveProgress,
  signal: AbortSignal,
): Promise<{ entries: number }> {
  const format = formatOf(archive.site.path)
  progress.total =
    format === 'zip' ? await zipEntries(site, archive, signal) : await tarEntries(site, archive, signal)
  const made = await site.run(['mkdir', '-p', '-m', '0700', staging], {}, signal)
  if (made.code !== 0) throw new Error(`Could not make the staging folder: ${made.stderr.trim()}`)
  const argv =
    format === 'zip'
      ? ['unzip', '-o', archive.absolute, '-d', staging]
      : ['tar', '-xvzf', archive.absolute, '-C', staging, '--no-same-owner', '--no-overwrite-dir']
  const result = await runCounting(site, argv, staging, progress, signal)
  if (result.code !== 0 && !(format === 'zip' && result.code === 1))
    throw new FileRefusal(
      'invalid_archive',
      `${archive.site.path} could not be extracted: ${result.stderr.trim().slice(0, 300)}`,
    )
  // Names were checked; what they made is checked again as it lies, links included, before anything leaves tmp/.
  await checkLinks(staging, staging, archive.site.path)
  const size = await site.run(['du', '-s', '-b', '-P', '--', staging], {}, signal)
  await checkRoom(Number(size.stdout.split('\t')[0]) || 0)
  const existing = await lstat(to.absolute).catch(() => null)
  if (existing) {
    if (!existing.isDirectory())
      throw new FileRefusal('file_exists', `${to.site.path} exists and is not a folder`)
    if (!overwrite && (await readdir(to.absolute)).length > 0)
      throw new FileRefusal(
        'file_exists',
        `${to.site.path} is not empty: extract with overwrite, or into a new folder`,
      )
  }
  const copy = await site.run(
    ['cp', '-a', '--remove-destination', '-T', '--', staging, to.absolute],
    { timeoutMs: 3_600_000 },
    signal,
  )
  if (copy.code !== 0)
    throw /No space left|Disk quota/.test(copy.stderr)
      ? new FileRefusal('disk_quota_exceeded', 'The node has no room for the extracted files')
      : new FileRefusal(
          'permission_denied',
          `The extracted files could not be put in ${to.site.path}: ${copy.stderr.trim().slice(0, 300)}`,
        )
  progress.done = progress.total
  return { entries: progress.total }
}

/** Options of making an archive. */
export interface Archiving {
  /** What goes in: located paths of one folder, named in the archive relative to it. */
  readonly sources: readonly Located[]
  readonly to: Located
  readonly overwrite: boolean
  /** Where it is written until whole (in the site's tmp/). */
  readonly partial: string
}

/** Makes the archive `to` (its format from its name) of `sources`; `progress` counts entries. */
export async function archive(
  site: NodeSite,
  { sources, to, overwrite, partial }: Archiving,
  progress: ArchiveProgress,
  signal: AbortSignal,
): Promise<{ entries: number }> {
  const format = formatOf(to.site.path)
  const folder = sources[0]?.parent
  if (!folder || sources.some((source) => source.parent !== folder))
    throw new FileRefusal('invalid_path', 'The paths of an archive are in one folder')
  if (!overwrite && (await lstat(to.absolute).catch(() => null)))
    throw new FileRefusal('file_exists', `${to.site.path} exists already`)
  const names = sources.map((source) => source.name)
  const counted = await site.run(['find', '-P', ...names, '-printf', '.'], { cwd: folder }, signal)
  progress.total = counted.stdout.length
  const made = await site.run(['mkdir', '-p', '-m', '0700', dirname(partial)], {}, signal)
  if (made.code !== 0) throw new Error(`Could not make the uploads folder: ${made.stderr.trim()}`)
  await site.run(['rm', '-f', '--', partial], {}, signal)
  // Links are stored as links (zip -y; tar's default), never what they point to.
  const argv =
    format === 'zip'
      ? ['zip', '-r', '-y', partial, '--', ...names]
      : ['tar', '-cvzf', partial, '--', ...names]
  const result = await runCounting(site, argv, folder, progress, signal)
  if (result.code !== 0) {
    await site.run(['rm', '-f', '--', partial], {}, signal)
    throw /No space left|Disk quota/.test(result.stderr)
      ? new FileRefusal('disk_quota_exceeded', 'The node has no room for the archive')
      : new Error(`Making ${to.site.path} failed: ${result.stderr.trim().slice(0, 300)}`)
  }
  const moved = await site.run(['mv', '-T', '-f', '--', partial, to.absolute], {}, signal)
  if (moved.code !== 0) throw new FileRefusal('permission_denied', `${to.site.path} could not be written`)
  progress.done = progress.total
  return { entries: progress.total }
}
