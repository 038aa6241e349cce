// Archives in a site, as the site's user: zip and tar.gz made from paths of one folder (links stored as links; names
// given as `./name`, so a file called `-delete` is a file, never an option), and extracted only after every entry's
// name was checked (no absolute names, no `..`, no hard link out) and the sizes they declare fit the site's room,
// into a staging folder beside the target (its group, its filesystem) watched as it grows, then walked for links
// pointing out of it before its entries are renamed into place. Progress is counted from the tools' verbose output.

import { dirname, resolve } from 'node:path'
import type { NodeSite } from '../../nodes/node/contract.ts'
import { type ArchiveFormat, archiveFormatOf } from '../protocol.ts'
import { entryOrNull, listEntries } from './file-entries.ts'
import { FileRefusal } from './file-refusal.ts'
import { refusalOfMessage, runChecked } from './run-checked.ts'
import { isInside, type Located } from './site-paths.ts'

/** How far an archive task got: entries done of all. */
export interface ArchiveProgress {
  done: number
  total: number
}

/** How often a growing extraction is measured against the room it has. */
const watchEveryMs = 1_000

/** The format a path's name says, or a refusal. */
export function formatOf(path: string): ArchiveFormat {
  const format = archiveFormatOf(path)
  if (!format) throw new FileRefusal('invalid_archive', `${path} is neither a .zip nor a .tar.gz (.tgz)`)
  return format
}

/** Runs `argv` as the site's user in `cwd`, counting its output lines into `progress`. */
function startCounting(
  site: NodeSite,
  argv: string[],
  cwd: string,
  progress: ArchiveProgress,
  signal: AbortSignal,
) {
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
  // The end of what it printed is kept besides: zip says why it failed there (a full disk), not on stderr.
  let tail = new Uint8Array(0)
  const counting = (async () => {
    for await (const chunk of child.stdout) {
      for (const byte of chunk) if (byte === 10) progress.done = Math.min(progress.total, progress.done + 1)
      tail = Buffer.concat([tail, chunk]).subarray(-4096)
    }
  })()
  const finished = Promise.all([new Response(child.stderr).text(), child.exited, counting]).then(
    ([stderr, code]) => ({ code, stderr: `${stderr}\n${Buffer.from(tail).toString('utf8')}` }),
  )
  return { child, finished }
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
  const unsafe =
    name.startsWith('/') ||
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    /[\u0000-\u001f]/.test(name) ||
    name.split('/').includes('..')
  if (unsafe)
    throw new FileRefusal(
      'archive_entry_escapes',
      `${archive} holds an entry outside its folder: ${JSON.stringify(name)}`,
      { entry: name },
    )
}

/** What an archive's listing says: its entries (each checked) and the bytes they declare. */
interface Listing {
  readonly entries: number
  readonly bytes: number
}

/** The entries of a tar.gz, each checked (names as stored: `-P` keeps a leading `/`), hard links' targets too. */
async function tarListing(site: NodeSite, archive: Located, signal: AbortSignal): Promise<Listing> {
  const result = await site.run(
    ['tar', '-tvzPf', archive.absolute, '--quoting-style=c', '--numeric-owner'],
    { timeoutMs: 600_000 },
    signal,
  )
  if (result.code !== 0)
    throw new FileRefusal('invalid_archive', `${archive.site.path} is not a readable tar.gz`)
  let entries = 0
  let bytes = 0
  for (const line of result.stdout.split('\n')) {
    if (line === '') continue
    const match =
      /^(\S)\S*\s+\S+\s+(\d+)\s+\S+\s+\S+\s+("(?:[^"\\]|\\.)*")(?: (->|link to) ("(?:[^"\\]|\\.)*"))?$/.exec(
        line,
      )
    if (!match)
      throw new FileRefusal('invalid_archive', `${archive.site.path} has an entry that cannot be read`)
    const [, kind, size = '0', name = '""', linkKind, target] = match
    checkEntryName(unquote(name), archive.site.path)
    // A hard link names another entry of the archive: never one outside it.
    if (linkKind === 'link to' && target) checkEntryName(unquote(target), archive.site.path)
    if (kind !== '-' && kind !== 'd' && kind !== 'l' && kind !== 'h')
      throw new FileRefusal(
        'invalid_archive',
        `${archive.site.path} holds a device, FIFO or other special entry`,
      )
    entries++
    bytes += Number(size)
  }
  return { entries, bytes }
}

/** The entries of a zip, each checked, and the bytes they declare uncompressed. */
async function zipListing(site: NodeSite, archive: Located, signal: AbortSignal): Promise<Listing> {
  const result = await site.run(['zipinfo', '-1', archive.absolute], { timeoutMs: 600_000 }, signal)
  if (result.code !== 0)
    throw new FileRefusal('invalid_archive', `${archive.site.path} is not a readable zip`)
  const names = result.stdout.split('\n').filter((name) => name !== '')
  for (const name of names) checkEntryName(name, archive.site.path)
  const totals = await site.run(['zipinfo', '-t', archive.absolute], {}, signal)
  const match = /^(\d+) files?, (\d+) bytes? uncompressed/m.exec(totals.stdout)
  // A name with a newline would split into two lines: the count says so.
  if (!match || Number(match[1]) !== names.length)
    throw new FileRefusal('invalid_archive', `${archive.site.path} has entry names that cannot be read`)
  return { entries: names.length, bytes: Number(match[2]) }
}

/**
 * Refuses a link under `root` whose target resolves outside `root` (an absolute target always). Found by `find` run
 * as the site's user: the site's own processes may change the folder while it is walked, and a walk as root would
 * then follow what they put there.
 */
async function checkLinks(site: NodeSite, root: string, archive: string, signal: AbortSignal): Promise<void> {
  const result = await site.run(
    ['find', '-P', root, '-type', 'l', '-printf', '%P\\0%l\\0'],
    { timeoutMs: 600_000 },
    signal,
  )
  if (result.code !== 0)
    throw new Error(`Looking for links in ${archive}'s entries failed: ${result.stderr.trim().slice(0, 300)}`)
  const fields = result.stdout.split('\0')
  for (let at = 0; at + 1 < fields.length; at += 2) {
    const entry = fields[at] ?? ''
    const target = fields[at + 1] ?? ''
    if (target.startsWith('/') || !isInside(root, resolve(dirname(`${root}/${entry}`), target)))
      throw new FileRefusal(
        'archive_link_escapes',
        `${archive} holds a link pointing out of it: ${entry} -> ${target}`,
        { entry, target },
      )
  }
}

/** Options of an extraction. */
export interface Extraction {
  readonly archive: Located
  /** Where the entries go: a folder made for them, or one that exists (empty unless `overwrite`). */
  readonly to: Located
  readonly overwrite: boolean
  /** The task's id: its staging folder's name. */
  readonly task: string
  /** The bytes the site may still write (its quota, or the node's free space less a reserve). */
  readonly allowance: () => Promise<number>
  /** Takes the extracted bytes of the site's room once they are in place. */
  readonly take: (bytes: number) => Promise<void>
}

/** Extracts `archive` into `to`; `progress` counts entries. */
export async function extract(
  site: NodeSite,
  extraction: Extraction,
  progress: ArchiveProgress,
  signal: AbortSignal,
): Promise<{ entries: number }> {
  const { archive, to, overwrite, task } = extraction
  const format = formatOf(archive.site.path)
  const listing =
    format === 'zip' ? await zipListing(site, archive, signal) : await tarListing(site, archive, signal)
  progress.total = listing.entries
  // What the entries declare must fit before a byte is written (a zip bomb declares its true size, or lies and is
  // stopped below).
  const room = await extraction.allowance()
  const tooBig = (bytes: number) =>
    new FileRefusal(
      'disk_quota_exceeded',
      `${archive.site.path} expands to more than the site has room for`,
      {
        neededBytes: bytes,
        // The room under the site's quota; without one it is the node's free disk, which is not the site's to know.
        ...(site.quotaBytes === null ? {} : { availableBytes: Math.max(0, room) }),
      },
    )
  if (listing.bytes > room) throw tooBig(listing.bytes)

  // Looked at as the site's user, like everything below.
  const existing = await entryOrNull(site, to.absolute, to.site.path, signal)
  if (existing) {
    if (existing.type !== 'directory')
      throw new FileRefusal('file_exists', `${to.site.path} exists and is not a folder`)
    if (!overwrite && (await listEntries(site, to.absolute, to.site.path, signal)).length > 0)
      throw new FileRefusal(
        'file_exists',
        `${to.site.path} is not empty: extract with overwrite, or into a new folder`,
      )
  }
  // Beside the target, or inside it when it exists: the entries get its group (the site's documents are nginx's
  // group's) and move into place by renames.
  const staging = existing ? `${to.absolute}/.plinth-extract-${task}` : `${to.parent}/.plinth-extract-${task}`
  const cleanup = () =>
    site.run(['rm', '-r', '-f', '--one-file-system', '--', staging], {}, AbortSignal.timeout(300_000))
  await cleanup()
  await runChecked(site, ['mkdir', '-m', '0755', '--', staging], to.site.path, signal)
  try {
    const argv =
      format === 'zip'
        ? ['unzip', '-o', '-q', archive.absolute, '-d', staging]
        : ['tar', '-xvzf', archive.absolute, '-C', staging, '--no-same-owner', '--no-overwrite-dir']
    // unzip -q is quiet: its entries are counted by the listing's end.
    const running = startCounting(site, argv, staging, progress, signal)
    let overflow: number | null = null
    const watching = setInterval(() => {
      void site
        .run(['du', '-s', '-b', '-P', '--', staging], {}, signal)
        .then((result) => {
          const grown = Number(result.stdout.split('\t')[0]) || 0
          if (grown > room && overflow === null) {
            overflow = grown
            running.child.kill('SIGKILL')
          }
        })
        .catch(() => {})
    }, watchEveryMs)
    const result = await running.finished.finally(() => clearInterval(watching))
    if (overflow !== null) throw tooBig(overflow)
    if (result.code !== 0 && !(format === 'zip' && result.code === 1))
      throw (
        refusalOfMessage(result.stderr, to.site.path) ??
        new FileRefusal('invalid_archive', `${archive.site.path} could not be extracted`)
      )
    // Names were checked; what they made is checked again as it lies, links included, before anything moves.
    await checkLinks(site, staging, archive.site.path, signal)
    const size = await site.run(['du', '-s', '-b', '-P', '--', staging], {}, signal)
    const bytes = Number(size.stdout.split('\t')[0]) || 0
    if (bytes > room) throw tooBig(bytes)
    await extraction.take(bytes)
    if (!existing) {
      await runChecked(site, ['mv', '-T', '--', staging, to.absolute], to.site.path, signal)
    } else {
      for (const entry of await listEntries(site, staging, to.site.path, signal)) {
        const { name } = entry
        const from = `${staging}/${name}`
        const into = `${to.absolute}/${name}`
        const there = await entryOrNull(site, into, `${to.site.path}/${name}`, signal)
        if (there?.type === 'directory' && entry.type === 'directory')
          // A folder into a folder: merged, what the archive has replacing what is there (links removed first,
          // never written through).
          await runChecked(
            site,
            ['cp', '-R', '-P', '--preserve=timestamps,links', '--remove-destination', '-T', '--', from, into],
            to.site.path,
            signal,
          )
        else {
          if (there?.type === 'directory')
            throw new FileRefusal(
              'file_exists',
              `${to.site.path}/${name} is a folder the archive would replace`,
            )
          await runChecked(site, ['mv', '-T', '-f', '--', from, into], to.site.path, signal)
        }
      }
    }
  } finally {
    await cleanup()
  }
  progress.done = progress.total
  return { entries: progress.total }
}

/** Options of making an archive. */
export interface Archiving {
  /** What goes in: located paths of one folder, named in the archive relative to it. */
  readonly sources: readonly Located[]
  readonly to: Located
  readonly overwrite: boolean
  readonly task: string
}

/** Makes the archive `to` (its format from its name) of `sources`; `progress` counts entries. */
export async function archive(
  site: NodeSite,
  { sources, to, overwrite, task }: Archiving,
  progress: ArchiveProgress,
  signal: AbortSignal,
): Promise<{ entries: number }> {
  const format = formatOf(to.site.path)
  const folder = sources[0]?.parent
  if (!folder || sources.some((source) => source.parent !== folder))
    throw new FileRefusal('invalid_path', 'The paths of an archive are in one folder')
  if (!overwrite && (await entryOrNull(site, to.absolute, to.site.path, signal)))
    throw new FileRefusal('file_exists', `${to.site.path} exists already`)
  // `./name`: a name starting with `-` is a name, never an option of find, tar or zip.
  const names = sources.map((source) => `./${source.name}`)
  const counted = await site.run(['find', '-P', ...names, '-printf', '.'], { cwd: folder }, signal)
  progress.total = counted.stdout.length
  const partial = `${to.parent}/.plinth-archive-${task}.part`
  await site.run(['rm', '-f', '--', partial], {}, signal)
  // Links are stored as links (zip -y; tar's default), never what they point to.
  const argv =
    format === 'zip'
      ? ['zip', '-r', '-y', partial, '--', ...names]
      : ['tar', '-cvzf', partial, '--', ...names]
  const result = await startCounting(site, argv, folder, progress, signal).finished
  if (result.code !== 0) {
    await site.run(['rm', '-f', '--', partial], {}, AbortSignal.timeout(60_000))
    throw (
      refusalOfMessage(result.stderr, to.site.path) ??
      new Error(`zip or tar failed: ${result.stderr.trim().slice(0, 300)}`)
    )
  }
  await runChecked(site, ['mv', '-T', '-f', '--', partial, to.absolute], to.site.path, signal)
  progress.done = progress.total
  return { entries: progress.total }
}
